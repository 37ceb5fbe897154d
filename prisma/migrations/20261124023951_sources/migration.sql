-- AlterTable
ALTER TABLE "Issue" ADD COLUMN     "modifiedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
-- Existing issues last changed when they were last written.
UPDATE "Issue" SET "modifiedAt" = "updatedAt";

-- AlterTable
ALTER TABLE "IssueEvent" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'new_issues';

-- CreateTable
CREATE TABLE "SourceState" (
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "lastAttemptAt" TIMESTAMPTZ(3),
    "lastSuccessAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMPTZ(3),
    "cursor" JSONB NOT NULL DEFAULT '{}',
    "counts" JSONB NOT NULL DEFAULT '{}',
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SourceState_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "SourceEntry" (
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,

    CONSTRAINT "SourceEntry_pkey" PRIMARY KEY ("source","key")
);

-- CreateTable
CREATE TABLE "CveEnrichment" (
    "cveId" TEXT NOT NULL,
    "kevDateAdded" TEXT,
    "epssScore" DOUBLE PRECISION,
    "epssCheckedAt" TIMESTAMPTZ(3),

    CONSTRAINT "CveEnrichment_pkey" PRIMARY KEY ("cveId")
);

-- CreateIndex
CREATE INDEX "Issue_modifiedAt_id_idx" ON "Issue"("modifiedAt", "id");

-- CreateIndex
CREATE INDEX "Issue_cveId_idx" ON "Issue"("cveId");

-- Every ingest batch probes these two with all its identifiers and packages. With GIN's pending
-- list (fastupdate) each probe also reads every entry not yet merged into the index, which after a
-- large load (a 250,000-record source) costs seconds per batch. Without it a probe stays a lookup.
ALTER INDEX "Issue_identifiers_idx" SET (fastupdate = off);
ALTER INDEX "Issue_packageNames_idx" SET (fastupdate = off);
