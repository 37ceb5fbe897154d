-- Full-text search for the list's `search` filter: English lexemes of searchText, kept by the
-- database itself (a generated column, so ingestion needs no change), with a GIN index that
-- `searchVector @@ websearch_to_tsquery('english', ...)` uses. Identifier-like terms (CVE, GHSA,
-- package names) keep the substring match on searchText through its trigram index.

-- AlterTable
ALTER TABLE "Issue" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "searchText")) STORED;

-- CreateIndex
CREATE INDEX "Issue_searchVector_idx" ON "Issue" USING GIN ("searchVector");
