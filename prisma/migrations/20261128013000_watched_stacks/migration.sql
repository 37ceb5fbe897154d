-- CreateTable
CREATE TABLE "WatchedStack" (
    "webhookId" UUID NOT NULL,
    "components" JSONB NOT NULL,
    "feedTokenHash" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WatchedStack_pkey" PRIMARY KEY ("webhookId")
);

-- CreateTable
CREATE TABLE "StackEntry" (
    "webhookId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "entry" TEXT NOT NULL,

    CONSTRAINT "StackEntry_pkey" PRIMARY KEY ("webhookId","key","entry")
);

-- CreateTable
CREATE TABLE "StackFinding" (
    "webhookId" UUID NOT NULL,
    "issueId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StackFinding_pkey" PRIMARY KEY ("webhookId","issueId")
);

-- CreateIndex
CREATE UNIQUE INDEX "WatchedStack_feedTokenHash_key" ON "WatchedStack"("feedTokenHash");

-- CreateIndex
CREATE INDEX "StackEntry_key_idx" ON "StackEntry"("key");

-- AddForeignKey
ALTER TABLE "WatchedStack" ADD CONSTRAINT "WatchedStack_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StackEntry" ADD CONSTRAINT "StackEntry_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "WatchedStack"("webhookId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StackFinding" ADD CONSTRAINT "StackFinding_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "WatchedStack"("webhookId") ON DELETE CASCADE ON UPDATE CASCADE;
