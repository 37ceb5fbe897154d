// The record loop every record source shares (osv-zip, osv-dir, feed): skip what the source gave
// before unchanged (SourceEntry fingerprints, compared before reading), hand the rest to the admin
// ingest's own pipeline in chunks, and remember each chunk's fingerprints once it is stored. A sync
// cut short resumes where it stopped: what was stored is skipped next time.
import type { PrismaClient } from '../generated/prisma/client.js';
import { cannotBeServed, dormantRow, idsWithIssues, staleDormantKeys, storeDormant, type DormantRow } from '../ingest/dormant.js';
import { defaultClassifier, ingestParsed, type IngestDeps, type IngestResult } from '../ingest/ingest.js';
import { batchOf, type ParsedEntry } from '../ingest/parse.js';
import { SourceError } from './fetch.js';
import { checkRecordSize, maxRecordBytes, RecordTooLarge } from './record-size.js';
import { analyseIssues, issueRowsEstimate, knownFingerprints, rememberFingerprints } from './store.js';

export interface SyncCounts {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Records skipped without reading: same fingerprint as last time. */
  skipped: number;
  /** Records skipped without reading: over maxRecordBytes. */
  tooLarge: number;
  /** Records that can never be served, kept as a DormantRecord row only (src/ingest/dormant.ts). */
  dormant: number;
}

export const emptyCounts = (): SyncCounts => ({ received: 0, created: 0, updated: 0, unchanged: 0, rejected: 0, skipped: 0, tooLarge: 0, dormant: 0 });

/** One record as a source lists it; `read` (which also parses it) is only called when the fingerprint changed. */
export interface SourceRecordEntry {
  key: string;
  fingerprint: string;
  /** The record's size in bytes when the listing knows it before reading (a zip's directory, a file's size). */
  bytes?: number;
  /** Throws RecordTooLarge for a record found over the limit only as it is read (one fetched on its own). */
  read: () => Promise<ParsedEntry>;
}

/**
 * Bytes of records per chunk, beside the count: a chunk is stored in one transaction, and on the
 * embedded database (one connection) every read waits for it. 750 records of 15.9 MB were one
 * transaction that held every reader for the whole sync (issue 27). A chunk holds at most this
 * much, or one record alone, so no transaction stores more than the largest record a sync reads.
 * Chunks of ordinary records (a few KB) end here too, at a few hundred records, which synced as
 * fast and with a lower peak (bench/components.md, "A sync of large entries").
 */
export const CHUNK_BYTES = maxRecordBytes;

export interface RecordSyncOptions {
  deps: IngestDeps;
  source: string;
  /** Stops between chunks: what was stored stays, the rest waits for the next sync. */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  relay: boolean;
  chunkSize?: number;
  /** Bytes of records per chunk (CHUNK_BYTES). */
  chunkBytes?: number;
  /** The database runs statements beside a transaction on other connections (PostgreSQL's pool; PGlite has one). */
  separateConnections?: boolean;
}

/**
 * Keeps the planner's statistics of Issue current while a sync grows it. A first sync multiplies
 * the table many times over before autovacuum's next ANALYZE (later still on a busy machine), and
 * with the statistics of a far smaller table the planner scans the whole table for each chunk's
 * identifier lookup instead of probing its index: seconds per chunk, growing with the table.
 * ANALYZE runs each time the table has grown by half since the last one: a handful of times per
 * sync, each reading a fixed-size sample. Only the columns the sync's own statements filter on
 * are analysed: a full ANALYZE also detoasts and measures the records and texts of its sample
 * (0.6 s each at 20,000 rows, awaited between chunks); autovacuum analyses the rest in its time.
 */
async function plannerStatistics(prisma: PrismaClient, beside: boolean): Promise<{ grew: (created: number) => Promise<void>; settled: () => Promise<void> }> {
  let analysed = await issueRowsEstimate(prisma);
  let added = 0;
  const analyse = async () => {
    await analyseIssues(prisma);
    analysed = await issueRowsEstimate(prisma);
  };
  // Beside the stores (PostgreSQL, on a connection of its own): awaited, an ANALYZE held up the
  // next chunk's store, 0.4 s at 30,000 rows and more as the table grows; the chunk after it is
  // planned with statistics at most one chunk older. A failure surfaces at the next chunk.
  let running: Promise<void> | null = null;
  let failure: unknown = null;
  return {
    grew: async (created) => {
      if (failure) throw failure;
      added += created;
      if (running || added < Math.max(1000, analysed / 2)) return;
      added = 0;
      if (!beside) return analyse();
      running = analyse()
        .catch((err: unknown) => void (failure = err))
        .finally(() => (running = null));
    },
    settled: async () => {
      await running;
      if (failure) throw failure;
    },
  };
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
): Promise<{ counts: SyncCounts; problems: string[]; tooLarge: string[] }> {
  const { deps, source } = options;
  // Up to three chunks are in memory at once (below), so their size sets most of a sync's working
  // set. On 250,000 records (PostgreSQL, bench/components.md), with two: 500 peaked at 273 MB but synced
  // at 1,148 records/s, 1,000 at 304 MB and 1,884/s, 750 at 292 MB and 1,856/s.
  const chunkSize = options.chunkSize ?? 750;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  let batchBytes = 0;
  const known = await knownFingerprints(deps.prisma, source);
  // Set aside by another classifier version: read again and judged anew (only these entries).
  const judgedBy = defaultClassifier().promptVersion;
  for (const key of await staleDormantKeys(deps.prisma, source, judgedBy)) known.delete(key);
  const counts = emptyCounts();
  const problems: string[] = [];
  const tooLarge: string[] = [];
  // Each record is parsed as it is read: the raw JSON is garbage at once rather than held, with
  // its parsed copy, until its chunk is full (two copies of each record lived long enough to be
  // moved to the old generation: a collector's cost of its own). Undefined: unreadable.
  let batch: { key: string; fingerprint: string; parsed: ParsedEntry | undefined; dormant?: DormantRow; readAgain?: () => Promise<ParsedEntry> }[] = [];
  let done = 0;
  const handled = () => done + counts.skipped + counts.tooLarge;
  // The chunk being stored while the next one is classified and the one after it is read: the
  // database and this process work at the same time, and at most three chunks are held. With one
  // chunk fewer, reading waited for each store, and this process was idle whenever a store took
  // longer than classifying a chunk (5% faster on 30,000 records; 261 MB at the peak of 250,000, main 254).
  let storing = null as Promise<void> | null;
  let storingBefore = null as Promise<void> | null;

  const statistics = await plannerStatistics(deps.prisma, options.separateConnections ?? false);
  const stored = async (chunk: typeof batch, readable: typeof batch, result: IngestResult) => {
    counts.received += chunk.length;
    counts.created += result.created;
    counts.updated += result.updated;
    counts.unchanged += result.unchanged;
    const dormant = chunk.flatMap((b) => (b.dormant ? [b.dormant] : []));
    counts.dormant += dormant.length;
    counts.rejected += result.rejected.length + (chunk.length - readable.length - dormant.length);
    for (const r of result.rejected) problems.push(`${readable[r.index]!.key}: ${r.message}`);
    // Before the fingerprints: a sync cut short in between reads these records again.
    await storeDormant(
      deps.prisma,
      source,
      judgedBy,
      dormant,
      readable.map((b) => b.key),
    );
    await rememberFingerprints(
      deps.prisma,
      source,
      chunk.map(({ key, fingerprint }) => ({ key, fingerprint })),
    );
    await statistics.grew(result.created);
    done += chunk.length;
    options.onProgress?.(handled(), total);
  };

  const flush = async () => {
    if (batch.length === 0) return;
    const chunk = batch;
    batch = [];
    batchBytes = 0;
    // A report set aside that already has an issue is ingested after all, so its issue follows it.
    const setAside = chunk.filter((b) => b.dormant);
    const withIssues = await idsWithIssues(
      deps.prisma,
      setAside.flatMap((b) => b.dormant!.knownBy ?? []),
    );
    for (const b of setAside) {
      if (!b.dormant!.knownBy?.some((id) => withIssues.has(id))) continue;
      b.dormant = undefined;
      b.parsed = await b.readAgain!();
    }
    const readable = chunk.filter((b) => b.parsed !== undefined);
    const parsed = batchOf(readable.map((b) => b.parsed!));
    // The keys stay until the chunk is stored (problems, fingerprints); the parsed records are the
    // ingest's from here.
    for (const b of readable) b.parsed = undefined;
    const previous = storing;
    const current = ingestParsed(deps, parsed, {
      chunkSize: readable.length || 1,
      relay: options.relay,
      storeAfter: previous ?? undefined,
      stopping: options.signal,
    }).then((result) => stored(chunk, readable, result));
    // Awaited by the next flush or at the end; a failure surfaces there once.
    current.catch(() => {});
    storing = current;
    const older = storingBefore;
    storingBefore = previous;
    if (older) await older;
  };

  const flushUnlessAborted = async () => {
    await flush();
    if (options.signal?.aborted) {
      // The chunk after the one that was being stored does not start storing once aborted.
      await storing?.catch(() => {});
      options.signal.throwIfAborted();
    }
  };

  try {
    for await (const entry of entries) {
      if (known.get(entry.key) === entry.fingerprint) {
        counts.skipped += 1;
        if (counts.skipped % 1000 === 0) options.onProgress?.(handled(), total);
        continue;
      }
      let parsed: ParsedEntry | undefined;
      try {
        if (entry.bytes !== undefined) checkRecordSize(entry.bytes);
        parsed = await entry.read();
      } catch (err) {
        // A record the source could not deliver (a fetch that failed) fails the sync, to be tried
        // again; one it delivered unreadable is that record's problem. One over the size limit is
        // not remembered: each sync that meets it counts it again.
        if (err instanceof SourceError) throw err;
        if (err instanceof RecordTooLarge) {
          counts.tooLarge += 1;
          tooLarge.push(entry.key);
          continue;
        }
        problems.push(`${entry.key}: ${(err as Error).message}`);
      }
      const bytes = entry.bytes ?? 0;
      if (batch.length > 0 && batchBytes + bytes > chunkBytes) await flushUnlessAborted();
      const dormant = parsed && 'item' in parsed && cannotBeServed(parsed.item) ? dormantRow(entry.key, parsed.item) : undefined;
      // A record set aside is let go at once, its row kept: held until its chunk is stored, most of
      // an npm export lived long enough to be moved to the old generation, which grew by the
      // chunk until a full collection. The few that turn out to have an issue are read again.
      batch.push(
        dormant
          ? { key: entry.key, fingerprint: entry.fingerprint, parsed: undefined, dormant, readAgain: entry.read }
          : { key: entry.key, fingerprint: entry.fingerprint, parsed },
      );
      batchBytes += bytes;
      if (batch.length >= chunkSize) await flushUnlessAborted();
    }
    await flush();
    await storing;
    // An ANALYZE that failed after the last chunk fails the sync as one before it would.
    await statistics.settled();
  } finally {
    // Whatever ends the sync, no ANALYZE outlives it.
    await statistics.settled().catch(() => {});
  }
  options.onProgress?.(handled(), total);
  return { counts, problems, tooLarge };
}
