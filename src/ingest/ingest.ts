// The ingest pipeline: parse -> facts -> classify -> row -> store (one transaction per chunk,
// each with its event row) -> rewrite the existing digests of the days touched -> relay to the
// newIssues topic.
import { setImmediate } from 'node:timers/promises';
import { refreshDigests } from '../digest/generate.js';
import type { Database } from '../db/client.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import type { IssuePubSub } from '../pubsub.js';
import { aiSummaries } from '../registry/profiles.js';
import { withKev } from '../sources/enrichment.js';
import { kevDates } from '../sources/store.js';
import { extractFacts, type Classifier } from './classifier/index.js';
import { RuleClassifier } from './classifier/rules.js';
import { parseBatch, type ParsedBatch, type Rejection } from './parse.js';
import { relayPending } from './relay.js';
import { issueRow } from './row.js';
import { storeBatch, type PreparedItem } from './store.js';

export interface IngestResult {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: Rejection[];
  /** Ids of the issues the accepted records created, updated or left unchanged, in input order. */
  ids: string[];
}

export interface IngestDeps {
  prisma: PrismaClient;
  /** Stores run in its bulk transactions. */
  db: Pick<Database, 'bulkTransaction'>;
  pubsub: IssuePubSub;
  log: Logger;
}

export interface IngestOptions {
  classifier?: Classifier;
  /** Records per transaction (and per event row). */
  chunkSize?: number;
  /** Called after each stored chunk with the number of records handled so far. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Publish the batch's events now (default). The CLI leaves them to the running server's relay:
   * its own in-process topic has no subscribers.
   */
  relay?: boolean;
  /** Once aborted (the server is shutting down), no further chunk starts: see stoppedError. */
  stopping?: AbortSignal;
  /**
   * Store only once this has settled (and not at all if it rejects): a caller that classifies the
   * next records while the previous ones are being stored keeps the stores in order.
   */
  storeAfter?: Promise<unknown>;
}

let classifier: Classifier | undefined;
/** Built on first use: the relevance model trains then (about a second), not at import. */
export function defaultClassifier(): Classifier {
  classifier ??= new RuleClassifier();
  return classifier;
}

/**
 * A chunk failed to store: the chunks before it are committed (each is one transaction), it and
 * the rest are not. The answer says where the line falls, so the client re-sends from there
 * (re-sending committed records changes nothing). An outage is a 503; any other failure stays a
 * masked 500, logged with the same line.
 */
function partialIngestError(err: unknown, result: IngestResult, firstUncommitted: number, log: Logger): unknown {
  log.error('ingest stopped: a chunk could not be stored', { firstUncommitted, err });
  if (!isDatabaseUnavailable(err)) return err;
  return cutShort('The database became unavailable during the ingest.', result, firstUncommitted);
}

/** The server is shutting down: the ingest stops between chunks, with the same answer as an outage. */
const stoppedError = (result: IngestResult, firstUncommitted: number) => cutShort('The server is shutting down.', result, firstUncommitted);

function cutShort(why: string, result: IngestResult, firstUncommitted: number) {
  const committed = result.created + result.updated + result.unchanged;
  const rejected = result.rejected.filter((r) => r.index < firstUncommitted).length;
  const line =
    committed === 0
      ? 'Nothing was committed: send the records again.'
      : `Records before index ${firstUncommitted} were committed (${committed} stored${rejected ? `, ${rejected} rejected as invalid` : ''}); ` +
        `records from index ${firstUncommitted} on were not: send them again.`;
  return serviceUnavailable(`${why} ${line}`, { committed, firstUncommitted });
}

export async function ingest(deps: IngestDeps, body: unknown, options: IngestOptions = {}): Promise<IngestResult> {
  return ingestParsed(deps, parseBatch(body), options);
}

/**
 * The pipeline from parsed records on: a caller that parses each record as it reads it (a sync)
 * lets the raw record go at once, instead of holding a chunk of them until the chunk is parsed.
 */
export async function ingestParsed(deps: IngestDeps, parsed: ParsedBatch, options: IngestOptions = {}): Promise<IngestResult> {
  const classifier = options.classifier ?? defaultClassifier();
  const chunkSize = options.chunkSize ?? 500;
  const result: IngestResult = { received: parsed.received, created: 0, updated: 0, unchanged: 0, rejected: [...parsed.rejected], ids: [] };
  const ids = new Set<string>();
  const days = new Set<string>();
  let done = parsed.rejected.length;
  // Every record rejected, nothing to store: still settled only after the store before it, so a
  // caller's results come in order and awaiting the last one awaits them all.
  if (parsed.items.length === 0) await options.storeAfter;
  for (let start = 0; start < parsed.items.length; start += chunkSize) {
    const prepared: PreparedItem[] = [];
    const chunk = parsed.items.slice(start, start + chunkSize);
    if (options.stopping?.aborted) throw stoppedError(result, chunk[0]!.index);
    let lookedUp, kev;
    try {
      lookedUp = await aiSummaries(
        deps.prisma,
        chunk.map((c) => c.item),
      );
      kev = await kevDates(
        deps.prisma,
        chunk.flatMap((c) => c.item.cveIds.slice(0, 1)),
      );
    } catch (err) {
      throw partialIngestError(err, result, chunk[0]!.index, deps.log);
    }
    for (const [n, { index, item: parsedItem }] of chunk.entries()) {
      // Classifying is CPU work: let a store running meanwhile (storeAfter) take its turns.
      if (n % 16 === 15) await setImmediate();
      const item = withKev(parsedItem, kev);
      try {
        const facts = extractFacts(item);
        const classification = await classifier.classify(item, facts, lookedUp);
        prepared.push({ row: issueRow(item, facts, classification, classifier), source: item.source });
      } catch (err) {
        deps.log.error('classification failed', { index, sourceId: item.sourceId, err });
        result.rejected.push({ index, message: 'could not be classified' });
      }
    }
    if (start === 0 && options.storeAfter) {
      await options.storeAfter;
      if (options.stopping?.aborted) throw stoppedError(result, chunk[0]!.index);
    }
    let stored;
    try {
      stored = await storeBatch(deps.db.bulkTransaction, prepared);
    } catch (err) {
      throw partialIngestError(err, result, chunk[0]!.index, deps.log);
    }
    for (const { id, outcome } of stored.outcomes) {
      result[outcome] += 1;
      ids.add(id);
    }
    for (const day of stored.days) days.add(day);
    done += chunk.length;
    options.onProgress?.(done, parsed.received);
  }
  result.rejected.sort((a, b) => a.index - b.index);
  result.ids = [...ids];
  // The issues are stored whatever happens here; a digest left stale is fixed by the next ingest
  // of its day, or by regenerating it.
  await refreshDigests(deps.prisma, [...days]).catch((err) => deps.log.error('digest refresh after ingest failed', { err }));
  // The events are committed: a failed publish is retried by the relay timer, not reported here.
  if (options.relay !== false && result.created + result.updated > 0) {
    await relayPending(deps.prisma, deps.pubsub, deps.log);
  }
  return result;
}
