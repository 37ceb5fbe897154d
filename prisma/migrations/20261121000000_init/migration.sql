-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "Severity" AS ENUM ('critical', 'high', 'medium', 'low', 'info');

-- CreateEnum
CREATE TYPE "IssueType" AS ENUM ('vulnerability', 'incident', 'news', 'regulatory', 'research');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'delivering', 'succeeded', 'failed', 'dead');

-- CreateTable
CREATE TABLE "Issue" (
    "id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "headline" TEXT,
    "summary" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "publishedAt" TIMESTAMPTZ(3) NOT NULL,
    "severity" "Severity" NOT NULL,
    "cvssSeverity" TEXT,
    "cvssScore" DECIMAL(3,1),
    "labels" TEXT[],
    "issueType" "IssueType" NOT NULL,
    "cveId" TEXT,
    "cweIds" TEXT[],
    "affectedPackages" TEXT[],
    "affectedPackageRefs" TEXT[],
    "affectedVendors" TEXT[],
    "affectedVendorsRaw" TEXT[],
    "classifierModel" TEXT NOT NULL,
    "classifierPromptVersion" TEXT NOT NULL,
    "solution" TEXT,
    "attackType" TEXT[],
    "cvssVector" TEXT,
    "attackVector" TEXT,
    "attackComplexity" TEXT,
    "privilegesRequired" TEXT,
    "userInteraction" TEXT,
    "exploitMaturity" TEXT,
    "epssScore" DOUBLE PRECISION,
    "epssCheckedAt" TIMESTAMPTZ(3),
    "kevDateAdded" TEXT,
    "advisoryAliases" TEXT[],
    "affectedPackagesSource" TEXT,
    "patchAvailable" BOOLEAN,
    "disclosureDate" TIMESTAMPTZ(3),
    "capecIds" TEXT[],
    "crossRefCount" INTEGER NOT NULL DEFAULT 0,
    "attackSophistication" TEXT NOT NULL,
    "impactType" TEXT[],
    "aiComponentTargeted" TEXT,
    "llmSpecific" BOOLEAN NOT NULL,
    "classifierConfidence" DOUBLE PRECISION NOT NULL,
    "researchCategory" TEXT,
    "atlasIds" TEXT[],
    "naturalKey" TEXT NOT NULL,
    "identifiers" TEXT[],
    "contentHash" TEXT NOT NULL,
    "relevant" BOOLEAN NOT NULL,
    "processed" BOOLEAN NOT NULL DEFAULT true,
    "withdrawn" BOOLEAN NOT NULL DEFAULT false,
    "packageNames" TEXT[],
    "vendorKeys" TEXT[],
    "searchText" TEXT NOT NULL,
    "source" JSONB NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Issue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Digest" (
    "id" UUID NOT NULL,
    "date" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "issueCount" INTEGER NOT NULL,
    "generatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Digest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IssueEvent" (
    "id" UUID NOT NULL,
    "issueIds" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "relayedAt" TIMESTAMPTZ(3),

    CONSTRAINT "IssueEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "scopes" TEXT[],
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "ownerKeyHash" TEXT NOT NULL,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "deadDeliveries" INTEGER NOT NULL DEFAULT 0,
    "deactivatedReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "eventId" UUID,
    "kind" TEXT NOT NULL DEFAULT 'new_issues',
    "payload" BYTEA NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMPTZ(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeliveryAttempt" (
    "id" UUID NOT NULL,
    "deliveryId" UUID NOT NULL,
    "attemptedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "statusCode" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,

    CONSTRAINT "DeliveryAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Issue_naturalKey_key" ON "Issue"("naturalKey");

-- CreateIndex
CREATE INDEX "Issue_publishedAt_id_idx" ON "Issue"("publishedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Issue_severity_publishedAt_idx" ON "Issue"("severity", "publishedAt" DESC);

-- CreateIndex
CREATE INDEX "Issue_issueType_publishedAt_idx" ON "Issue"("issueType", "publishedAt" DESC);

-- CreateIndex
CREATE INDEX "Issue_labels_idx" ON "Issue" USING GIN ("labels");

-- CreateIndex
CREATE INDEX "Issue_packageNames_idx" ON "Issue" USING GIN ("packageNames");

-- CreateIndex
CREATE INDEX "Issue_vendorKeys_idx" ON "Issue" USING GIN ("vendorKeys");

-- CreateIndex
CREATE INDEX "Issue_identifiers_idx" ON "Issue" USING GIN ("identifiers");

-- CreateIndex
CREATE INDEX "Issue_searchText_idx" ON "Issue" USING GIN ("searchText" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "Digest_date_key" ON "Digest"("date");

-- CreateIndex
CREATE INDEX "IssueEvent_relayedAt_idx" ON "IssueEvent"("relayedAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- CreateIndex
CREATE INDEX "Webhook_ownerKeyHash_idx" ON "Webhook"("ownerKeyHash");

-- CreateIndex
CREATE INDEX "Webhook_active_idx" ON "Webhook"("active");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhookId_eventId_key" ON "WebhookDelivery"("webhookId", "eventId");

-- CreateIndex
CREATE INDEX "DeliveryAttempt_deliveryId_idx" ON "DeliveryAttempt"("deliveryId");

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "IssueEvent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeliveryAttempt" ADD CONSTRAINT "DeliveryAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

