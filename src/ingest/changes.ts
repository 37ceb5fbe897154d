// What every change to stored issues shares (an ingest in store.ts, an enrichment in
// sources/enrichment.ts): one lock, a modifiedAt that only grows, and the change events.
import type { Prisma } from '../generated/prisma/client.js';

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
export async function lockForChanges(tx: Prisma.TransactionClient): Promise<Date> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ingestLockKey})`;
  // A batch's statements run once each over index probes, but their estimated costs (thousands
  // of keys) pass PostgreSQL's JIT threshold: compiling them took 1 to 3 s per statement, the
  // statements themselves milliseconds.
  await tx.$executeRaw`SET LOCAL jit = off`;
  const [row] = await tx.$queryRaw<{ at: Date }[]>`
    SELECT date_trunc('milliseconds', greatest(clock_timestamp(), (SELECT max("modifiedAt") FROM "Issue") + interval '1 millisecond')) AS at`;
  return new Date(row!.at);
}

/** Change events (not published to newIssues): the record a delivery of these kinds to opted-in webhooks would start from. */
export async function recordChangeEvents(tx: Prisma.TransactionClient, byKind: Record<'issues_updated' | 'issues_withdrawn', string[]>): Promise<void> {
  const data = Object.entries(byKind)
    .filter(([, issueIds]) => issueIds.length > 0)
    .map(([kind, issueIds]) => ({ kind, issueIds }));
  if (data.length) await tx.issueEvent.createMany({ data });
}
