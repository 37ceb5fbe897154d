// Exploitation signals (CISA KEV, FIRST EPSS) by CVE. Sources write them to CveEnrichment; from
// there they are copied onto the issues of that CVE, by sources and by every ingest, so an issue
// created after the signal arrived has it too. Only rows that differ are written: a re-run over
// the same data changes nothing, and a new EPSS score is an update of the issue, never a new one.
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { servedIssueSql } from '../issues/served.js';
import { bumpDataVersion } from '../db/data-version.js';
import { lockForChanges, recordChangeEvents } from '../ingest/changes.js';

export interface EnrichmentRow {
  cveId: string;
  kevDateAdded?: string;
  epssScore?: number;
  epssCheckedAt?: string;
}

/**
 * Copies the stored signals onto the issues of these CVEs where they differ, with `modifiedAt`;
 * answers the ids of the served issues that changed. Runs inside the caller's locked transaction.
 */
export async function applyEnrichment(tx: Prisma.TransactionClient, cveIds: string[], modifiedAt: Date): Promise<string[]> {
  if (cveIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string; served: boolean }[]>`
    UPDATE "Issue" AS i SET
      "kevDateAdded" = coalesce(e."kevDateAdded", i."kevDateAdded"),
      "exploitMaturity" = CASE WHEN e."kevDateAdded" IS NOT NULL THEN 'active' ELSE i."exploitMaturity" END,
      "epssScore" = coalesce(e."epssScore", i."epssScore"),
      "epssCheckedAt" = coalesce(e."epssCheckedAt", i."epssCheckedAt"),
      "modifiedAt" = ${modifiedAt}, "updatedAt" = ${modifiedAt}, "changedHereAt" = ${modifiedAt}
    FROM "CveEnrichment" AS e
    WHERE i."cveId" = e."cveId" AND e."cveId" = ANY(${cveIds}::text[])
      AND (i."kevDateAdded" IS DISTINCT FROM coalesce(e."kevDateAdded", i."kevDateAdded")
        OR (e."kevDateAdded" IS NOT NULL AND i."exploitMaturity" IS DISTINCT FROM 'active')
        OR i."epssScore" IS DISTINCT FROM coalesce(e."epssScore", i."epssScore")
        OR i."epssCheckedAt" IS DISTINCT FROM coalesce(e."epssCheckedAt", i."epssCheckedAt"))
    RETURNING i."id"::text AS id, (${servedIssueSql}) AS served`;
  return rows.filter((r) => r.served).map((r) => r.id);
}

/**
 * Stores one chunk of signals (only the fields given; the others keep their values) and applies
 * them to issues, in one transaction under the ingest lock. Answers how many CVEs changed and how
 * many served issues were updated.
 */
export async function storeEnrichment(prisma: PrismaClient, rows: EnrichmentRow[]): Promise<{ changed: number; updatedIssues: number }> {
  if (rows.length === 0) return { changed: 0, updatedIssues: 0 };
  return prisma.$transaction(
    async (tx) => {
      const modifiedAt = await lockForChanges(tx);
      const changed = await tx.$queryRaw<{ cveId: string }[]>`
        INSERT INTO "CveEnrichment" AS c ("cveId", "kevDateAdded", "epssScore", "epssCheckedAt")
        SELECT x."cveId", x."kevDateAdded", x."epssScore", x."epssCheckedAt"
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x("cveId" text, "kevDateAdded" text, "epssScore" float8, "epssCheckedAt" timestamptz)
        ON CONFLICT ("cveId") DO UPDATE SET
          "kevDateAdded" = coalesce(excluded."kevDateAdded", c."kevDateAdded"),
          "epssScore" = coalesce(excluded."epssScore", c."epssScore"),
          "epssCheckedAt" = coalesce(excluded."epssCheckedAt", c."epssCheckedAt")
        WHERE c."kevDateAdded" IS DISTINCT FROM coalesce(excluded."kevDateAdded", c."kevDateAdded")
           OR c."epssScore" IS DISTINCT FROM coalesce(excluded."epssScore", c."epssScore")
           OR c."epssCheckedAt" IS DISTINCT FROM coalesce(excluded."epssCheckedAt", c."epssCheckedAt")
        RETURNING c."cveId"`;
      const updated = await applyEnrichment(
        tx,
        changed.map((c) => c.cveId),
        modifiedAt,
      );
      if (changed.length) await bumpDataVersion(tx);
      await recordChangeEvents(tx, { issues_updated: updated, issues_withdrawn: [] });
      return { changed: changed.length, updatedIssues: updated.length };
    },
    { maxWait: 30_000, timeout: 300_000 },
  );
}
