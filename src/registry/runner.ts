// The server's registry lookups: one run at a time, in the background, asked for after each ingest
// and sync. A request during a run makes one more run after it, so what was ingested meanwhile
// does not wait for the next request.
import type { IngestDeps } from '../ingest/ingest.js';
import type { RegistryUrls } from './summaries.js';

export interface RegistryLookups {
  /** Ask about these issues' packages, or (no ids: after a sync) every unserved issue's. */
  request(issueIds?: string[]): void;
  /** Stops asking (the answers of the step cut short are not stored) and waits for the run to end. */
  stop(): Promise<void>;
  /** Resolves once the runs asked for so far have ended. */
  idle(): Promise<void>;
}

export function startRegistryLookups(deps: IngestDeps, urls: RegistryUrls): RegistryLookups {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  // What the next run asks about: ids, or every unserved issue (undefined); null when nothing is asked for.
  let pending: Set<string> | undefined | null = null;
  const run = async () => {
    while (pending !== null && !stopping.signal.aborted) {
      const ids = pending && [...pending];
      pending = null;
      try {
        // Loaded with the first request: a server that only serves never holds the classifier.
        const { lookUpRegistries } = await import('./lookup.js');
        const result = await lookUpRegistries(deps, urls, { signal: stopping.signal, issueIds: ids });
        const { reclassified, ...counts } = result;
        if (result.asked > 0)
          deps.log.info('registry lookups', { ...counts, newlyServed: reclassified?.newlyServed ?? 0, noLongerServed: reclassified?.unserved ?? 0 });
      } catch (err) {
        deps.log.error('registry lookups stopped', { err });
      }
    }
    running = undefined;
  };
  return {
    request(issueIds) {
      if (stopping.signal.aborted) return;
      if (!issueIds) pending = undefined;
      else if (pending !== undefined) pending = new Set([...(pending ?? []), ...issueIds]);
      running ??= run();
    },
    async stop() {
      stopping.abort();
      await running;
    },
    idle: async () => {
      await running;
    },
  };
}
