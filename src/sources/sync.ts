// One sync of one source: take the source's lease (lease.ts), fetch (or learn nothing changed), hand the
// records to the ingest pipeline or the signals to the enrichment store, and write the source's
// state row. A failure is logged and written to the state row; it never reaches other sources.
import { setImmediate } from 'node:timers/promises';
import type { Database } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { IngestDeps } from '../ingest/ingest.js';
import type { SourceHints } from '../ingest/item.js';
import { staleDormantKeys } from '../ingest/dormant.js';
import { defaultClassifier } from '../ingest/ingest.js';
import { reclassify } from '../ingest/reclassify.js';
import type { SourceDefinition } from './definition.js';
import type { EnrichmentRow } from './enrichment.js';
import { readFeed } from './feed.js';
import { uncoveredKevRecords } from './kev-issues.js';
import { fetchSource, SourceError, type Validators } from './fetch.js';
import { withSourceLease } from './lease.js';
import { listOsvDir } from './osv-dir.js';
import { changedSince, indexEntries, newestIn, readIndex } from './osv-index.js';
import { openOsvZip } from './osv-zip.js';
import { maxRecordBytes } from './record-size.js';
import { recordFailure, recordSuccess, startAttempt, storeEnrichment } from './store.js';
import { emptyCounts, syncRecords, type SourceRecordEntry, type SyncCounts } from './records.js';
import { type EpssScores, readEpss, readKev } from './signals.js';

export interface SyncDeps extends IngestDeps {
  db: Database;
}

export interface SyncOptions {
  allowPrivate: boolean;
  /** The wait before a failed fetch's first retry (fetch.ts). */
  retryMs?: number;
  /** Publish new issues from this process (the server); the CLI leaves them to the server's relay. */
  relay?: boolean;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Extra CA certificate to trust for https sources (tests). */
  ca?: string;
  /** Records per ingest transaction. */
  chunkSize?: number;
  /** Bytes of records per ingest transaction (records.ts, CHUNK_BYTES). */
  chunkBytes?: number;
  /**
   * The server's schedule: each fetch retry logs at debug, and a failure logs at error only when
   * it is not a repeat of the source's last one (an unreachable source is one line, not one per try).
   */
  repeatedFailure?: (message: string) => boolean;
}

export interface SyncOutcome {
  source: string;
  /** synced: fetched and processed; unchanged: the source said nothing changed; busy: another instance holds it. */
  status: 'synced' | 'unchanged' | 'busy' | 'failed';
  counts: SyncCounts;
  error?: string;
  seconds: number;
}

interface Cursor {
  kind?: string;
  location?: string;
  validators?: Validators;
  /** osv-zip with a modified_id.csv: the newest `modified` the last successful sync covered. */
  since?: string;
}

/** The rows of a signal file, chunk by chunk: KEV's array, or EPSS's file read as it is stored (signals.ts). */
type EnrichmentRows = Pick<EpssScores, 'length' | 'chunks'>;

const arrayRows = (rows: EnrichmentRow[]): EnrichmentRows => ({
  length: rows.length,
  async *chunks(size) {
    for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
  },
});

async function syncEnrichment(deps: SyncDeps, rows: EnrichmentRows, options: SyncOptions): Promise<SyncCounts> {
  const counts = { ...emptyCounts(), received: rows.length };
  // Rows per transaction: a chunk's rows, its JSON and the rows it returns live as long as its
  // transaction and are promoted to the old generation; at 5,000 rows each chunk's JSON was also a
  // large object, freed only by a full collection, which a signal file's sync rarely met.
  let done = 0;
  for await (const chunk of rows.chunks(1000)) {
    const stored = await storeEnrichment(deps.db.bulkTransaction, chunk);
    // KEV is a judgement input: its issues are classified again, which decides their severity.
    const rejudged = stored.rejudge.length ? await reclassify(deps, { ids: stored.rejudge, relay: options.relay ?? false }) : undefined;
    counts.updated += stored.updatedIssues + (rejudged?.updated ?? 0);
    done += chunk.length;
    options.onProgress?.(done, rows.length);
    options.signal?.throwIfAborted();
    // A turn of the event loop between chunks: the embedded database answers every statement
    // without one, so a signal file's whole sync would otherwise hold up every request and timer,
    // and V8 could not finish a collection until its end (the old generation grew all along).
    await setImmediate();
  }
  // CVEs the feed names that no issue has are neither: count them as unchanged.
  counts.unchanged = rows.length - counts.updated;
  return counts;
}

type Listing = { total: number; entries: AsyncIterable<SourceRecordEntry>; close?: () => void };

async function processFile(deps: SyncDeps, source: SourceDefinition, path: string, options: SyncOptions): Promise<SyncCounts> {
  if (source.kind === 'kev') {
    const { rows, entries } = await readKev(path);
    const counts = await syncEnrichment(deps, arrayRows(rows), options);
    // Then the entries no advisory covers, as records of their own (kev-issues.ts).
    const records = await uncoveredKevRecords(deps.prisma, entries);
    const listing = (async function* () {
      yield* records;
    })();
    const issues = await syncListing(deps, source, { total: records.length, entries: listing }, options);
    return { ...counts, created: issues.created, updated: counts.updated + issues.updated, rejected: issues.rejected, skipped: issues.skipped };
  }
  if (source.kind === 'epss') return syncEnrichment(deps, await readEpss(path), options);
  let listing: Listing;
  if (source.kind === 'osv-zip') listing = await openOsvZip(path);
  else if (source.kind === 'osv-dir') listing = await listOsvDir(path);
  else listing = await readFeed(path, feedHints(source), { summaries: source.summaries ?? true });
  return syncListing(deps, source, listing, options);
}

function feedHints({ issueType, labels }: SourceDefinition): SourceHints | undefined {
  if (issueType === undefined && labels === undefined) return undefined;
  return { ...(issueType ? { issueType } : {}), ...(labels ? { labels } : {}) };
}

async function syncListing(deps: SyncDeps, source: SourceDefinition, listing: Listing, options: SyncOptions): Promise<SyncCounts> {
  try {
    const { counts, problems, tooLarge } = await syncRecords(listing.entries, listing.total, {
      deps,
      source: source.name,
      relay: options.relay ?? false,
      signal: options.signal,
      onProgress: options.onProgress,
      chunkSize: options.chunkSize,
      chunkBytes: options.chunkBytes,
      separateConnections: deps.db.kind === 'postgres',
    });
    if (problems.length) deps.log.warn('source records rejected', { source: source.name, rejected: problems.length, first: problems.slice(0, 5) });
    if (tooLarge.length)
      deps.log.warn('source records over the size limit skipped', {
        source: source.name,
        tooLarge: tooLarge.length,
        limitBytes: maxRecordBytes,
        first: tooLarge.slice(0, 5),
      });
    return counts;
  } finally {
    listing.close?.();
  }
}

export async function syncSource(deps: SyncDeps, source: SourceDefinition, options: SyncOptions): Promise<SyncOutcome> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const outcome = await withSourceLease(deps.db, deps.log, source.name, async (): Promise<SyncOutcome> => {
    const { prisma, log } = deps;
    const state = await startAttempt(prisma, source);
    const cursor = state.cursor as Cursor;
    // A source that now names another file starts over.
    const validators = cursor.kind === source.kind && cursor.location === source.location ? (cursor.validators ?? {}) : {};
    const sameSource = cursor.kind === source.kind && cursor.location === source.location;
    let cleanup = async () => {};
    try {
      const fetchOptions = {
        allowPrivate: options.allowPrivate,
        retryMs: options.retryMs,
        validators,
        ca: options.ca,
        onRetry: (attempt: number, err: Error) =>
          log[options.repeatedFailure ? 'debug' : 'warn']('source fetch failed, retrying', { source: source.name, attempt, error: err.message }),
      };
      // Read before the export, so a record modified while the export downloads is newer than
      // the `since` this sync leaves behind.
      const unusable = (problem: string) => log.warn('source index unusable, reading the whole export', { source: source.name, error: problem });
      const index = source.kind === 'osv-zip' ? await readIndex(source.location, fetchOptions, unusable) : null;
      let counts = emptyCounts();
      let next = validators;
      let since = index ? (newestIn(index) ?? undefined) : undefined;
      let changed: boolean;
      if (index && sameSource && cursor.since) {
        // Only the records modified since the last sync, each fetched on its own.
        const { changed: records } = changedSince(index, cursor.since);
        // And the records set aside by another classifier version, to be judged anew (records.ts).
        const listed = new Set(records.map((r) => `${r.id}.json`));
        const again = await staleDormantKeys(prisma, source.name, defaultClassifier().promptVersion);
        for (const key of again) if (key.endsWith('.json') && !listed.has(key)) records.push({ id: key.slice(0, -'.json'.length), modified: '' });
        changed = records.length > 0;
        if (changed)
          counts = await syncListing(deps, source, { total: records.length, entries: indexEntries(source.location, records, fetchOptions) }, options);
        since ??= cursor.since;
      } else {
        const fetched = await fetchSource(source.location, fetchOptions);
        changed = fetched.changed;
        if (fetched.changed) {
          cleanup = fetched.cleanup;
          counts = await processFile(deps, source, fetched.path, options);
          next = fetched.validators;
        }
      }
      const nextCursor: Cursor = { kind: source.kind, location: source.location, validators: next, ...(since ? { since } : {}) };
      await recordSuccess(prisma, source.name, {
        cursor: nextCursor as Prisma.InputJsonValue,
        ...(changed ? { counts: counts as unknown as Prisma.InputJsonValue } : {}),
        newData: counts.created + counts.updated > 0,
      });
      const status = changed ? 'synced' : 'unchanged';
      log.info('source synced', { source: source.name, kind: source.kind, status, ...counts, seconds: Number(seconds().toFixed(2)) });
      return { source: source.name, status, counts, seconds: seconds() };
    } catch (err) {
      const interrupted = err instanceof Error && err.name === 'AbortError';
      const message = err instanceof SourceError ? err.message : interrupted ? 'sync interrupted' : 'unexpected error';
      if (!(err instanceof SourceError) && !interrupted) log.error('source sync failed unexpectedly', { source: source.name, err });
      log[options.repeatedFailure?.(message) ? 'debug' : 'error']('source sync failed', { source: source.name, kind: source.kind, error: message });
      await recordFailure(prisma, source.name, message).catch((stateErr) => log.error('source state not written', { source: source.name, err: stateErr }));
      return { source: source.name, status: 'failed', counts: emptyCounts(), error: message, seconds: seconds() };
    } finally {
      await cleanup();
    }
  });
  return outcome ?? { source: source.name, status: 'busy', counts: emptyCounts(), seconds: seconds() };
}
