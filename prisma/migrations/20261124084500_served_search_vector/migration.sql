-- searchVector only for served rows. Every search asks for served rows, and computing English
-- lexemes for the rest (most of a synced ecosystem export, never served) was more than half of
-- the cost of inserting them: 85 of 142 ms per 1,000 rows. A row that becomes served (an update
-- of relevant, processed or withdrawn) gets its vector then: a stored generated column is
-- recomputed on every update of its row.

-- AlterTable
ALTER TABLE "Issue" DROP COLUMN "searchVector";
ALTER TABLE "Issue" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  CASE WHEN relevant AND processed AND NOT withdrawn THEN to_tsvector('english'::regconfig, "searchText") END
) STORED;

-- CreateIndex
CREATE INDEX "Issue_searchVector_idx" ON "Issue" USING GIN ("searchVector");
