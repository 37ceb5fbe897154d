-- The ordered indexes hold only served rows (relevant, processed, not withdrawn), which every
-- read asks for: smaller, and counts under the list filters become index-only scans.

-- DropIndex
DROP INDEX "Issue_issueType_publishedAt_idx";

-- DropIndex
DROP INDEX "Issue_publishedAt_id_idx";

-- DropIndex
DROP INDEX "Issue_severity_publishedAt_idx";

-- CreateIndex
CREATE INDEX "Issue_served_publishedAt_id_idx" ON "Issue"("publishedAt" DESC, "id" DESC) WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);

-- CreateIndex
CREATE INDEX "Issue_served_severity_publishedAt_idx" ON "Issue"("severity", "publishedAt" DESC) WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);

-- CreateIndex
CREATE INDEX "Issue_served_issueType_publishedAt_idx" ON "Issue"("issueType", "publishedAt" DESC) WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);
