-- A webhook receives events created after it subscribed: at registration, and again from its
-- re-activation or a change of its filters (so neither backfills past events).
ALTER TABLE "Webhook" ADD COLUMN "subscribedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "Webhook" SET "subscribedAt" = "createdAt";

-- After a rotation the old secret keeps signing (webhook-signature) until it expires.
ALTER TABLE "Webhook" ADD COLUMN "previousSecret" TEXT,
ADD COLUMN "previousSecretExpiresAt" TIMESTAMPTZ(3);

-- The dispatcher's catch-up reads the last day's events.
CREATE INDEX "IssueEvent_createdAt_idx" ON "IssueEvent"("createdAt");
