// Gives memory back once the process has gone idle after work. V8 sizes its heap for the
// allocation rate it last saw and keeps that size while nothing allocates: an idle server sat at
// 270 MB, of which the heap was 146 MB (32 MB of it an empty young generation) around 67 MB of
// live objects. One memory-reducing collection when the event loop has been quiet for a while
// takes it back to about the live set (bench/README.md, start-up), at the cost of one pause of tens
// of milliseconds while nothing else is running. Under load nothing changes: V8 keeps its
// throughput-friendly sizing, so requests pay no extra collections.
import { performance } from 'node:perf_hooks';

/** V8's `gc` as `--expose-gc` installs it, with the options it takes. */
export type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface IdleCollection {
  stop(): void;
}

/**
 * Every `intervalMs`, looks at how busy the event loop was since the last look: after
 * `quietIntervals` quiet intervals in a row that followed at least `minWorkMs` of work since the
 * last collection, collects once. A pause between bursts of requests is not idleness: a collection
 * there would make V8 compile again what the next burst runs. A process that stays idle collects
 * once, not every interval: background timers (the relay, the dispatcher's sweep) add a few
 * milliseconds a minute, so an idle server collects again only every several minutes. The
 * collection also lets V8 drop bytecode it has not run for a while, so the first requests after a
 * quiet spell may compile a little again.
 */
export function startIdleCollection(collect: Collect, { intervalMs = 5_000, quietIntervals = 4, quietShare = 0.01, minWorkMs = 250 } = {}): IdleCollection {
  let last = performance.eventLoopUtilization();
  // Start-up is work too: with no arguments the utilisation covers the life of the process, so the
  // first quiet spell after a start collects what loading and seeding left behind.
  let workMs = last.active;
  let quiet = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    workMs += since.active;
    quiet = since.utilization > quietShare ? 0 : quiet + 1;
    if (quiet < quietIntervals || workMs < minWorkMs) return;
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    workMs = 0;
    quiet = 0;
    // The collection's own time is not work to collect after.
    last = performance.eventLoopUtilization();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
