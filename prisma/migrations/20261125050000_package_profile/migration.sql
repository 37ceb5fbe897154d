-- CreateTable
CREATE TABLE "PackageProfile" (
    "ecosystem" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "summary" TEXT,
    "aiSummary" BOOLEAN NOT NULL DEFAULT false,
    "checkedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PackageProfile_pkey" PRIMARY KEY ("ecosystem","name")
);
