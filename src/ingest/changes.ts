// What every change to stored issues shares (an ingest in store.ts, an enrichment in
// sources/store.ts, a reclassification): one lock, a modifiedAt that only grows, and the change
// events with their relay. The lock and the event rows go inside the caller's bulk transaction
// (db/bulk.ts); the relay's claim and the reclassifier's pages are Prisma's, off the ingest's path.
import { randomUUID } from 'node:crypto';
import type { BulkClient } from '../db/bulk.js';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** One lock for every ingest: batches serialise, so concurrent ingests of the same records never race. */
const ingestLockKey = 0x5ec1e57n;

/**
 * Takes the lock every change to issues takes (ingest, enrichment), then answers the modifiedAt
 * of this transaction's changes: later than every modifiedAt already committed, so commits in
 * lock order have strictly increasing times and a mirror polling "modified after T" never misses
 * a row that commits after its poll with a time it has already passed. A transaction that changes
 * issues also moves the data version (bumpDataVersion), once it knows it does: one that changes
 * nothing writes nothing, and the caches keep their entries.
 */
export async function lockForChanges(tx: BulkClient): Promise<Date> {
  await tx.execute(Prisma.sql`SELECT pg_advisory_xact_lock(${ingestLockKey})`);
  // A batch's statements run once each over index probes, but their estimated costs (thousands
  // of keys) pass PostgreSQL's JIT threshold: compiling them took 1 to 3 s per statement, the
  // statements themselves milliseconds.
  await tx.execute(Prisma.sql`SET LOCAL jit = off`);
  const [row] = await tx.query<{ at: Date }>(Prisma.sql`
    SELECT date_trunc('milliseconds', greatest(clock_timestamp(), (SELECT max("modifiedAt") FROM "Issue") + interval '1 millisecond')) AS at`);
  return new Date(row!.at);
}

/** Records an event row of this kind naming these issues (createdAt: its transaction's start); answers its id. */
export async function recordEvent(tx: BulkClient, kind: 'new_issues' | 'issues_updated' | 'issues_withdrawn', issueIds: string[]): Promise<string> {
  const id = randomUUID();
  await tx.execute(Prisma.sql`INSERT INTO "IssueEvent" (id, kind, "issueIds") VALUES (${id}::uuid, ${kind}, ${issueIds}::text[])`);
  return id;
}

/** Change events (not published to newIssues): the record a delivery of these kinds to opted-in webhooks would start from. */
export async function recordChangeEvents(tx: BulkClient, byKind: Record<'issues_updated' | 'issues_withdrawn', string[]>): Promise<void> {
  for (const [kind, issueIds] of Object.entries(byKind) as [keyof typeof byKind, string[]][]) {
    if (issueIds.length > 0) await recordEvent(tx, kind, issueIds);
  }
}

/** Events per relay transaction. */
export const relayBatchSize = 100;

/**
 * Publishes up to relayBatchSize new_issues events nobody has published yet, oldest first, and
 * marks them in the same transaction; answers how many. A publish that fails throws here and rolls
 * the marks back: the next run tries again.
 */
export function relayNewIssueEvents(prisma: PrismaClient, publish: (event: { eventId: string; issueIds: string[] }) => Promise<void>): Promise<number> {
  return prisma.$transaction(async (tx) => {
    // SKIP LOCKED: several instances relaying at once each take different rows.
    const rows = await tx.$queryRaw<{ id: string; issueIds: string[] }[]>`
      SELECT id::text AS id, "issueIds" FROM "IssueEvent"
      WHERE "relayedAt" IS NULL AND "kind" = 'new_issues' ORDER BY "createdAt", id LIMIT ${Prisma.raw(String(relayBatchSize))} FOR UPDATE SKIP LOCKED`;
    for (const row of rows) await publish({ eventId: row.id, issueIds: row.issueIds });
    if (rows.length) {
      await tx.issueEvent.updateMany({ where: { id: { in: rows.map((r) => r.id) } }, data: { relayedAt: new Date() } });
    }
    return rows.length;
  });
}

/** The issues to classify again: these ids, or those another classifier version or model judged. */
export type StaleIssues = { ids: string[] } | { promptVersion: string; model: string };

const staleWhere = (stale: StaleIssues): Prisma.IssueWhereInput =>
  'ids' in stale ? { id: { in: stale.ids } } : { OR: [{ classifierPromptVersion: { not: stale.promptVersion } }, { classifierModel: { not: stale.model } }] };

export function countStaleIssues(prisma: PrismaClient, stale: StaleIssues): Promise<number> {
  return prisma.issue.count({ where: staleWhere(stale) });
}

/** One keyset page of stale issues by id, after `after`, with the records they were built from. */
export function staleIssuePage(prisma: PrismaClient, stale: StaleIssues, after: string | undefined, take: number) {
  const where = staleWhere(stale);
  return prisma.issue.findMany({
    where: after ? { AND: [where, { id: { gt: after } }] } : where,
    select: { id: true, relevant: true, processed: true, withdrawn: true, source: true },
    orderBy: { id: 'asc' },
    take,
  });
}

/** What decides whether these issues are served, as stored now. */
export function servedStates(prisma: PrismaClient, ids: string[]) {
  return prisma.issue.findMany({ where: { id: { in: ids } }, select: { id: true, relevant: true, processed: true, withdrawn: true } });
}
