-- AlterTable
ALTER TABLE "Issue" ADD COLUMN     "changedHereAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "SourceState" ADD COLUMN     "lastNewDataAt" TIMESTAMPTZ(3);
