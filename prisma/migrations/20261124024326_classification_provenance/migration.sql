-- Classification provenance (GraphQL Issue.classification), OWASP LLM Top 10 ids, and the time an
-- issue was first published as new, so reclassification never announces an issue twice.
ALTER TABLE "Issue" ADD COLUMN     "announcedAt" TIMESTAMPTZ(3),
ADD COLUMN     "classification" JSONB,
ADD COLUMN     "owaspIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Issues served so far, or named by an event, were announced when first seen.
UPDATE "Issue" SET "announcedAt" = "firstSeenAt"
WHERE (relevant AND NOT withdrawn)
   OR id::text IN (SELECT unnest("issueIds") FROM "IssueEvent");
