-- Every read of labels, vendorKeys and searchText asks for served rows (relevant, processed, not
-- withdrawn), so their GIN indexes hold only those. Most rows of a synced ecosystem export are not
-- AI-related and never served, and maintaining these indexes (the trigram one above all) for them was
-- most of the cost of storing a 250,000-record OSV export.

-- DropIndex
DROP INDEX "Issue_labels_idx";

-- DropIndex
DROP INDEX "Issue_searchText_idx";

-- DropIndex
DROP INDEX "Issue_vendorKeys_idx";

-- CreateIndex
CREATE INDEX "Issue_served_labels_idx" ON "Issue" USING GIN ("labels") WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);

-- CreateIndex
CREATE INDEX "Issue_served_vendorKeys_idx" ON "Issue" USING GIN ("vendorKeys") WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);

-- CreateIndex
CREATE INDEX "Issue_served_searchText_idx" ON "Issue" USING GIN ("searchText" gin_trgm_ops) WHERE ("relevant" = true AND "processed" = true AND "withdrawn" = false);
