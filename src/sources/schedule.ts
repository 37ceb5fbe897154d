// The server's sync timers: each source syncs at start-up and then every intervalMinutes. A
// source still syncing when its timer fires is not started twice; stop() interrupts syncs between
// chunks (what was stored stays, the next start resumes) and waits for them. A source that fails
// is tried again sooner, after 1, 2, 4, ... minutes (never later than its interval), and says so
// once: an unreachable upstream is one error line, however long it stays away. At most
// syncsAtOnce sources sync at a time, the others wait their turn: a first sync of every default
// source at once would hold every export's working set (and database connections) together.
import pLimit from 'p-limit';
import type { SourceDefinition } from './definition.js';
import { leaseSeconds } from './lease.js';
import { logFirstPass } from './summary.js';
import { emptyCounts } from './records.js';
import { syncSource, type SyncDeps, type SyncOutcome } from './sync.js';

/**
 * Sources syncing at once in one server. The embedded database runs one statement at a time, so a
 * second sync there gains little time (each sync already reads and classifies while it stores) and
 * doubles the working set that sizes the process's peak memory.
 */
export const syncsAtOnce = (database: SyncDeps['db']['kind']) => (database === 'pglite' ? 1 : 2);

/** Minutes before the next try after `failures` failures in a row. */
export function retryMinutes(failures: number, intervalMinutes: number): number {
  return Math.min(intervalMinutes, 2 ** Math.max(0, failures - 1));
}

/** `onChanged`: called after a sync that created or updated issues. */
export function startSourceSchedule(
  deps: SyncDeps,
  sources: SourceDefinition[],
  options: { allowPrivate: boolean; retryMs?: number; onChanged?: () => void },
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const running = new Map<string, Promise<unknown>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const later = (source: SourceDefinition, minutes: number) => {
    clearTimeout(timers.get(source.name));
    if (stopping.signal.aborted) return;
    const timer = setTimeout(() => tick(source), minutes * 60_000);
    timer.unref();
    timers.set(source.name, timer);
  };
  const failures = new Map<string, { count: number; message: string }>();
  const turn = pLimit(syncsAtOnce(deps.db.kind));
  const sync = (source: SourceDefinition, repeatedFailure: (message: string) => boolean) =>
    turn(async () =>
      // Stopped while waiting for its turn: it is not started.
      stopping.signal.aborted
        ? undefined
        : syncSource(deps, source, { allowPrivate: options.allowPrivate, retryMs: options.retryMs, relay: true, signal: stopping.signal, repeatedFailure }),
    );
  // Each source's first outcome, until every source has one: then the one line on the first pass.
  const firstPass = new Map<string, SyncOutcome>();
  const first = (outcome: SyncOutcome) => {
    if (firstPass.size === sources.length || firstPass.has(outcome.source)) return;
    firstPass.set(outcome.source, outcome);
    if (firstPass.size === sources.length)
      logFirstPass(
        deps.log,
        [...sources].map((s) => firstPass.get(s.name)!),
      );
  };
  const tick = (source: SourceDefinition) => {
    if (running.has(source.name) || stopping.signal.aborted) return;
    const last = failures.get(source.name);
    // A failure in the first pass is told by the first pass's line, not a line of its own.
    const inFirstPass = !firstPass.has(source.name);
    const run = sync(source, (message) => inFirstPass || last?.message === message)
      .then((outcome) => {
        if (!outcome) return;
        first(outcome);
        // Another instance holds it (or held it and died): try again once its lease could have run out.
        if (outcome.status === 'busy') return later(source, Math.min(source.intervalMinutes, Math.ceil(leaseSeconds / 60) + 1));
        if (outcome.status === 'failed') {
          const count = (last?.count ?? 0) + 1;
          failures.set(source.name, { count, message: outcome.error ?? '' });
          return later(source, retryMinutes(count, source.intervalMinutes));
        }
        if (last) deps.log.info('source reachable again', { source: source.name, after: last.count === 1 ? '1 failure' : `${last.count} failures` });
        failures.delete(source.name);
        later(source, source.intervalMinutes);
        if (outcome.counts.created + outcome.counts.updated > 0) options.onChanged?.();
      })
      .catch((err) => {
        deps.log.error('source sync failed unexpectedly', { source: source.name, err });
        first({ source: source.name, status: 'failed', error: 'unexpected error', counts: emptyCounts(), seconds: 0 });
        later(source, source.intervalMinutes);
      })
      .finally(() => running.delete(source.name));
    running.set(source.name, run);
  };
  for (const source of sources) tick(source);
  return {
    async stop() {
      stopping.abort();
      timers.forEach(clearTimeout);
      await Promise.all(running.values());
    },
  };
}
