-- CreateIndex
CREATE INDEX "IssueEvent_createdAt_idx" ON "IssueEvent"("createdAt");
