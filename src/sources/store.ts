// The sources aggregate's SQL, in one place: each source's state row, the fingerprints of what it
// gave (SourceEntry), the exploitation signals by CVE (CveEnrichment) with their copy onto issues,
// and the planner statistics a sync keeps current. The lease is lease.ts's, the records set aside
// ingest/dormant.ts's.
import type { BulkClient, BulkTransaction } from '../db/bulk.js';
import { bumpDataVersion } from '../db/data-version.js';
import { Prisma, type PrismaClient, type SourceState } from '../generated/prisma/client.js';
import { lockForChanges, recordChangeEvents } from '../ingest/changes.js';
import { servedIssueSql } from '../issues/served.js';
import type { EnrichmentRow, StoredEnrichment } from './enrichment.js';

/** The state row of a source starting a sync, created on its first: its cursor says where the last one ended. */
export function startAttempt(prisma: PrismaClient, source: { name: string; kind: string; location: string }): Promise<SourceState> {
  return prisma.sourceState.upsert({
    where: { name: source.name },
    create: { name: source.name, kind: source.kind, location: source.location, lastAttemptAt: new Date() },
    update: { kind: source.kind, location: source.location, lastAttemptAt: new Date() },
  });
}

/** A sync that succeeded: its cursor, and its counts when it fetched anything. */
export async function recordSuccess(
  prisma: PrismaClient,
  name: string,
  { cursor, counts, newData }: { cursor: Prisma.InputJsonValue; counts?: Prisma.InputJsonValue; newData: boolean },
): Promise<void> {
  await prisma.sourceState.update({
    where: { name },
    data: {
      lastSuccessAt: new Date(),
      lastError: null,
      lastErrorAt: null,
      cursor,
      ...(counts ? { counts } : {}),
      ...(newData ? { lastNewDataAt: new Date() } : {}),
    },
  });
}

/** A sync that failed, with the message an operator reads. */
export async function recordFailure(prisma: PrismaClient, name: string, message: string): Promise<void> {
  await prisma.sourceState.update({ where: { name }, data: { lastError: message, lastErrorAt: new Date() } });
}

/** The state rows of these sources (none before a source's first sync). */
export function sourceStates(prisma: PrismaClient, names: string[]): Promise<SourceState[]> {
  return prisma.sourceState.findMany({ where: { name: { in: names } } });
}

/** The source that last delivered new data, if any has. */
export function latestDelivery(prisma: PrismaClient): Promise<SourceState | null> {
  return prisma.sourceState.findFirst({ where: { lastNewDataAt: { not: null } }, orderBy: { lastNewDataAt: 'desc' } });
}

/** The fingerprint of each record the source gave before, by key. */
export async function knownFingerprints(prisma: PrismaClient, source: string): Promise<Map<string, string>> {
  const rows = await prisma.sourceEntry.findMany({ where: { source }, select: { key: true, fingerprint: true } });
  return new Map(rows.map((r) => [r.key, r.fingerprint]));
}

export async function rememberFingerprints(prisma: PrismaClient, source: string, entries: { key: string; fingerprint: string }[]): Promise<void> {
  if (entries.length === 0) return;
  // A zip may name one entry twice: the last one stands.
  const unique = [...new Map(entries.map((e) => [e.key, e])).values()];
  await prisma.$executeRaw`
    INSERT INTO "SourceEntry" ("source", "key", "fingerprint")
    SELECT ${source}, x."key", x."fingerprint" FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) AS x("key" text, "fingerprint" text)
    ON CONFLICT ("source", "key") DO UPDATE SET "fingerprint" = excluded."fingerprint"`;
}

/** The planner's estimate of Issue's rows (records.ts, plannerStatistics). */
export async function issueRowsEstimate(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRaw<{ rows: number }[]>`SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = '"Issue"'::regclass`;
  return row?.rows ?? 0;
}

/** ANALYZE of the columns a sync's own statements filter on (records.ts, plannerStatistics). */
export async function analyseIssues(prisma: PrismaClient): Promise<void> {
  await prisma.$executeRaw`ANALYZE "Issue" (id, identifiers, "packageNames", "naturalKey", relevant, processed, withdrawn, "modifiedAt", "publishedAt", "cveId")`;
}

/** The KEV dates stored for these CVEs. */
export async function kevDates(prisma: Prisma.TransactionClient | PrismaClient, cveIds: string[]): Promise<Map<string, string>> {
  if (cveIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ cveId: string; kevDateAdded: string }[]>`
    SELECT "cveId", "kevDateAdded" FROM "CveEnrichment" WHERE "cveId" = ANY(${[...new Set(cveIds)]}::text[]) AND "kevDateAdded" IS NOT NULL`;
  return new Map(rows.map((r) => [r.cveId, r.kevDateAdded]));
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
