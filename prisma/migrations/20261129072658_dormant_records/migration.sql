-- CreateTable
CREATE TABLE "DormantRecord" (
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "modified" TEXT,
    "contentHash" TEXT NOT NULL,
    "judgedBy" TEXT NOT NULL,

    CONSTRAINT "DormantRecord_pkey" PRIMARY KEY ("source","key")
);
