// The server's sync timers: each source syncs at start-up and then every intervalMinutes. A
// source still syncing when its timer fires is not started twice; stop() interrupts syncs between
// chunks (what was stored stays, the next start resumes) and waits for them.
import type { SourceDefinition } from './definition.js';
import { syncSource, type SyncDeps } from './sync.js';

/** `onChanged`: called after a sync that created or updated issues. */
export function startSourceSchedule(deps: SyncDeps, sources: SourceDefinition[], options: { allowPrivate: boolean; onChanged?: () => void }): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const running = new Map<string, Promise<unknown>>();
  const timers: NodeJS.Timeout[] = [];
  const tick = (source: SourceDefinition) => {
    if (running.has(source.name) || stopping.signal.aborted) return;
    const run = syncSource(deps, source, { allowPrivate: options.allowPrivate, relay: true, signal: stopping.signal })
      .then((outcome) => {
        if (outcome.counts.created + outcome.counts.updated > 0) options.onChanged?.();
      })
      .catch((err) => deps.log.error('source sync failed unexpectedly', { source: source.name, err }))
      .finally(() => running.delete(source.name));
    running.set(source.name, run);
  };
  for (const source of sources) {
    tick(source);
    const timer = setInterval(() => tick(source), source.intervalMinutes * 60_000);
    timer.unref();
    timers.push(timer);
  }
  return {
    async stop() {
      stopping.abort();
      timers.forEach(clearInterval);
      await Promise.all(running.values());
    },
  };
}
