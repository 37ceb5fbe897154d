// Applies the current classifier to stored issues classified by another version, from the source
// records they were built from, through the ingest path itself (parse, classify, store with its
// event row), so an issue that becomes served is published once as new, exactly as ingest would,
// and one that stops being relevant stops being served. Idempotent: a second run finds nothing
// stale. Rows are read in keyset pages by id, so memory stays flat at any size.
import { isServed } from '../issues/served.js';
import { countStaleIssues, servedStates, staleIssuePage, type StaleIssues } from './changes.js';
import type { Classifier } from './classifier/index.js';
import { defaultClassifier, ingest, type IngestDeps } from './ingest.js';
import { relayPending } from './relay.js';

export interface ReclassifyResult {
  /** classifierPromptVersion applied. */
  version: string;
  /** Stale issues found (classified by another version or model). */
  examined: number;
  updated: number;
  /** Issues that are served now and were not before. */
  newlyServed: number;
  /** Issues that were served and no longer are. */
  unserved: number;
  /** Issues whose stored record could not be reclassified (they stay as they were). */
  failed: number;
}

export interface ReclassifyOptions {
  classifier?: Classifier;
  /** Issues per page and per transaction. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Publish the events now (default); the CLI leaves them to the running server's relay. */
  relay?: boolean;
  /**
   * Judge these issues again whatever version classified them: what the classifier knows of their
   * packages changed (a registry lookup), not the classifier.
   */
  ids?: string[];
}

export async function reclassify(deps: IngestDeps, options: ReclassifyOptions = {}): Promise<ReclassifyResult> {
  const classifier = options.classifier ?? defaultClassifier();
  const batchSize = options.batchSize ?? 500;
  const stale: StaleIssues = options.ids ? { ids: options.ids } : { promptVersion: classifier.promptVersion, model: classifier.model };
  const total = await countStaleIssues(deps.prisma, stale);
  const result: ReclassifyResult = { version: classifier.promptVersion, examined: 0, updated: 0, newlyServed: 0, unserved: 0, failed: 0 };
  let after: string | undefined;
  options.onProgress?.(0, total);
  for (;;) {
    // Updated rows leave the stale set; the id cursor keeps pages from overlapping either way.
    const rows = await staleIssuePage(deps.prisma, stale, after, batchSize);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    const records = rows.map((r) => (r.source as { record?: unknown } | null)?.record);
    const stored = await ingest(deps, records, { classifier, chunkSize: batchSize, relay: false });
    const now = await servedStates(
      deps.prisma,
      rows.map((r) => r.id),
    );
    const before = new Map(rows.map((r) => [r.id, isServed(r)]));
    for (const row of now) {
      if (isServed(row) && !before.get(row.id)) result.newlyServed++;
      if (!isServed(row) && before.get(row.id)) result.unserved++;
    }
    result.examined += rows.length;
    result.updated += stored.updated;
    result.failed += stored.rejected.length;
    options.onProgress?.(result.examined, total);
  }
  if (options.relay !== false && result.updated > 0) {
    await relayPending(deps.prisma, deps.pubsub, deps.log);
  }
  return result;
}
