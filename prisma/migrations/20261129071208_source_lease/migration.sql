-- CreateTable
CREATE TABLE "SourceLease" (
    "name" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SourceLease_pkey" PRIMARY KEY ("name")
);
