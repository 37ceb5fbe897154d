// What every change to stored issues shares (an ingest in store.ts, an enrichment in
// sources/enrichment.ts): one lock, a modifiedAt that only grows, and the change events.
import { randomUUID } from 'node:crypto';
import type { BulkClient } from '../db/bulk.js';
import { Prisma } from '../generated/prisma/client.js';

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
