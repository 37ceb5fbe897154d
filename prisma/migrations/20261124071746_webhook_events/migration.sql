-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "events" TEXT[] DEFAULT ARRAY['new_issues']::TEXT[];
