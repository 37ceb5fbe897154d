-- A webhook receives events created after it subscribed: at registration, and again from its
-- re-activation or a change of its filters (so neither backfills past events).
ALTER TABLE "Webhook" ADD COLUMN "subscribedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "Webhook" SET "subscribedAt" = "createdAt";
