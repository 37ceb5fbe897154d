// Exploitation signals (CISA KEV, FIRST EPSS) by CVE. Sources write them to CveEnrichment.
// - KEV is a judgement input: every ingest gives a record the KEV date stored for its CVE before
//   classifying it (withKev), and the classifier alone decides exploitMaturity and the
//   known-exploited severity floor from it. A KEV change therefore answers the issues of its CVEs
//   (storeEnrichment's `rejudge`) for the caller to classify again through reclassify({ ids }).
// - EPSS is a plain copy: applyEnrichment copies it onto the issues of that CVE, by sources and by
//   every ingest, so an issue created after the signal arrived has it too.
// Only rows that differ are written: a re-run over the same data changes nothing, and a new EPSS
// score is an update of the issue, never a new one.
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { servedIssueSql } from '../issues/served.js';
import type { BulkClient, BulkTransaction } from '../db/bulk.js';
import { bumpDataVersion } from '../db/data-version.js';
import { lockForChanges, recordChangeEvents } from '../ingest/changes.js';
import type { Item } from '../ingest/item.js';

export interface EnrichmentRow {
  cveId: string;
  kevDateAdded?: string;
  epssScore?: number;
  epssCheckedAt?: string;
}

/** The KEV dates stored for these CVEs. */
export async function kevDates(prisma: Prisma.TransactionClient | PrismaClient, cveIds: string[]): Promise<Map<string, string>> {
  if (cveIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ cveId: string; kevDateAdded: string }[]>`
    SELECT "cveId", "kevDateAdded" FROM "CveEnrichment" WHERE "cveId" = ANY(${[...new Set(cveIds)]}::text[]) AND "kevDateAdded" IS NOT NULL`;
  return new Map(rows.map((r) => [r.cveId, r.kevDateAdded]));
}

/** The item with the KEV date stored for its CVE (the one it is filed under), unless it carries its own. */
export function withKev(item: Item, kev: ReadonlyMap<string, string>): Item {
  const date = item.cveIds[0] === undefined ? undefined : kev.get(item.cveIds[0]);
  return item.kevDateAdded !== undefined || date === undefined ? item : { ...item, kevDateAdded: date };
}

/**
 * Copies the stored EPSS scores onto the issues of these CVEs where they differ, with
 * `modifiedAt`; answers the ids of the served issues that changed. Runs inside the caller's
 * locked transaction.
 */
export async function applyEnrichment(tx: BulkClient, cveIds: string[], modifiedAt: Date): Promise<string[]> {
  if (cveIds.length === 0) return [];
  const rows = await tx.query<{ id: string; served: boolean }>(Prisma.sql`
    UPDATE "Issue" AS i SET
      "epssScore" = coalesce(e."epssScore", i."epssScore"),
      "epssCheckedAt" = coalesce(e."epssCheckedAt", i."epssCheckedAt"),
      "modifiedAt" = ${modifiedAt}, "updatedAt" = ${modifiedAt}, "changedHereAt" = ${modifiedAt}
    FROM "CveEnrichment" AS e
    WHERE i."cveId" = e."cveId" AND e."cveId" = ANY(${cveIds}::text[])
      AND (i."epssScore" IS DISTINCT FROM coalesce(e."epssScore", i."epssScore")
        OR i."epssCheckedAt" IS DISTINCT FROM coalesce(e."epssCheckedAt", i."epssCheckedAt"))
    RETURNING i."id"::text AS id, (${servedIssueSql}) AS served`);
  return rows.filter((r) => r.served).map((r) => r.id);
}

export interface StoredEnrichment {
  /** CVEs whose signals changed. */
  changed: number;
  /** Served issues whose EPSS fields were updated. */
  updatedIssues: number;
  /** Issues whose CVE's KEV date differs from theirs: to classify again (reclassify({ ids })). */
  rejudge: string[];
}

/**
 * Stores one chunk of signals (only the fields given; the others keep their values) and copies
 * EPSS onto issues, in one transaction under the ingest lock.
 */
export async function storeEnrichment(bulkTransaction: BulkTransaction, given: EnrichmentRow[]): Promise<StoredEnrichment> {
  // A file that repeats a CVE: its last row wins (one INSERT ... ON CONFLICT cannot update a row twice).
  const rows = [...new Map(given.map((row) => [row.cveId, row])).values()];
  if (rows.length === 0) return { changed: 0, updatedIssues: 0, rejudge: [] };
  return bulkTransaction(async (tx) => {
    const modifiedAt = await lockForChanges(tx);
    const changed = await tx.query<{ cveId: string }>(Prisma.sql`
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
        RETURNING c."cveId"`);
    const cveIds = changed.map((c) => c.cveId);
    const updated = await applyEnrichment(tx, cveIds, modifiedAt);
    if (changed.length) await bumpDataVersion(tx);
    await recordChangeEvents(tx, { issues_updated: updated, issues_withdrawn: [] });
    const rejudge = cveIds.length
      ? await tx.query<{ id: string }>(Prisma.sql`
            SELECT i.id::text AS id FROM "Issue" AS i JOIN "CveEnrichment" AS e ON e."cveId" = i."cveId"
            WHERE e."cveId" = ANY(${cveIds}::text[]) AND i."kevDateAdded" IS DISTINCT FROM e."kevDateAdded"`)
      : [];
    return { changed: changed.length, updatedIssues: updated.length, rejudge: rejudge.map((r) => r.id) };
  });
}
