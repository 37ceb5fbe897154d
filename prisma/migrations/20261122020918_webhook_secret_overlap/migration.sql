-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "previousSecret" TEXT,
ADD COLUMN     "previousSecretExpiresAt" TIMESTAMPTZ(3);
