-- CreateTable
CREATE TABLE "DataVersion" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "DataVersion_pkey" PRIMARY KEY ("id")
);

-- The one row every change transaction increments (src/db/data-version.ts).
INSERT INTO "DataVersion" ("id", "version") VALUES (1, 0);
