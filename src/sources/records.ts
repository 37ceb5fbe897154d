// The record loop every record source shares (osv-zip, osv-dir, feed): skip what the source gave
// before unchanged (SourceEntry fingerprints, compared before reading), hand the rest to the admin
// ingest's own pipeline in chunks, and remember each chunk's fingerprints once it is stored. A sync
// cut short resumes where it stopped: what was stored is skipped next time.
import type { PrismaClient } from '../generated/prisma/client.js';
import { ingest, type IngestDeps } from '../ingest/ingest.js';

export interface SyncCounts {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Records skipped without reading: same fingerprint as last time. */
  skipped: number;
}

export const emptyCounts = (): SyncCounts => ({ received: 0, created: 0, updated: 0, unchanged: 0, rejected: 0, skipped: 0 });

/** One record as a source lists it; `read` is only called when the fingerprint changed. */
export interface SourceRecordEntry {
  key: string;
  fingerprint: string;
  read: () => Promise<unknown>;
}

export interface RecordSyncOptions {
  deps: IngestDeps;
  source: string;
  /** Stops between chunks: what was stored stays, the rest waits for the next sync. */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  relay: boolean;
  chunkSize?: number;
}

export async function knownFingerprints(prisma: PrismaClient, source: string): Promise<Map<string, string>> {
  const rows = await prisma.sourceEntry.findMany({ where: { source }, select: { key: true, fingerprint: true } });
  return new Map(rows.map((r) => [r.key, r.fingerprint]));
}

async function rememberFingerprints(prisma: PrismaClient, source: string, entries: { key: string; fingerprint: string }[]): Promise<void> {
  if (entries.length === 0) return;
  // A zip may name one entry twice: the last one stands.
  const unique = [...new Map(entries.map((e) => [e.key, e])).values()];
  await prisma.$executeRaw`
    INSERT INTO "SourceEntry" ("source", "key", "fingerprint")
    SELECT ${source}, x."key", x."fingerprint" FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) AS x("key" text, "fingerprint" text)
    ON CONFLICT ("source", "key") DO UPDATE SET "fingerprint" = excluded."fingerprint"`;
}

/**
 * Ingests the entries whose fingerprint changed. `entries` may be lazy (a zip read entry by
 * entry); `total` is only for progress. Entries that cannot be read or parsed count as rejected
 * and are remembered too, so an unchanged bad record is not reported on every run.
 */
export async function syncRecords(
  entries: AsyncIterable<SourceRecordEntry>,
  total: number,
  options: RecordSyncOptions,
): Promise<{ counts: SyncCounts; problems: string[] }> {
  const { deps, source } = options;
  const chunkSize = options.chunkSize ?? 1000;
  const known = await knownFingerprints(deps.prisma, source);
  const counts = emptyCounts();
  const problems: string[] = [];
  let batch: { key: string; fingerprint: string; record: unknown }[] = [];
  let done = 0;

  const flush = async () => {
    if (batch.length === 0) return;
    const readable = batch.filter((b) => b.record !== undefined);
    const result = await ingest(
      deps,
      readable.map((b) => b.record),
      { chunkSize: readable.length || 1, relay: options.relay },
    );
    counts.received += batch.length;
    counts.created += result.created;
    counts.updated += result.updated;
    counts.unchanged += result.unchanged;
    counts.rejected += result.rejected.length + (batch.length - readable.length);
    for (const r of result.rejected) problems.push(`${readable[r.index]!.key}: ${r.message}`);
    await rememberFingerprints(deps.prisma, source, batch.map(({ key, fingerprint }) => ({ key, fingerprint })));
    done += batch.length;
    batch = [];
    options.onProgress?.(done + counts.skipped, total);
  };

  for await (const entry of entries) {
    if (known.get(entry.key) === entry.fingerprint) {
      counts.skipped += 1;
      if (counts.skipped % 1000 === 0) options.onProgress?.(done + counts.skipped, total);
      continue;
    }
    let record: unknown;
    try {
      record = await entry.read();
    } catch (err) {
      problems.push(`${entry.key}: ${(err as Error).message}`);
    }
    batch.push({ key: entry.key, fingerprint: entry.fingerprint, record });
    if (batch.length >= chunkSize) {
      await flush();
      options.signal?.throwIfAborted();
    }
  }
  await flush();
  options.onProgress?.(done + counts.skipped, total);
  return { counts, problems };
}
