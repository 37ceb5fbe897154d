// The idle collection: one memory-reducing collection after work, none while busy or while idle
// with nothing done since the last one. Driven by the event loop's real utilisation.
import { afterEach, describe, expect, it } from 'vitest';
import { startIdleCollection } from '../../src/idle-collection.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The collection at test speed (a look every 50 ms): what it collected, and how many looks' time has passed. */
function watch(quietIntervals: number) {
  const calls: unknown[] = [];
  let intervals = 0;
  const counter = setInterval(() => intervals++, 50);
  const running = startIdleCollection((options) => calls.push(options), { intervalMs: 50, quietIntervals, quietShare: 0.5, minWorkMs: 100 });
  stops.push(
    () => clearInterval(counter),
    () => running.stop(),
  );
  return { calls, intervals: () => intervals };
}

describe('idle collection', () => {
  it('collects once after work when the loop goes quiet, then not again until there is more work', async () => {
    const { calls, intervals } = watch(3);
    // Busy intervals (the loop blocked for 150 ms at a time) never collect.
    for (let i = 0; i < 3; i++) {
      busy(150);
      await tick();
    }
    expect(calls).toHaveLength(0);
    while (calls.length === 0) await tick();
    expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    // Quiet intervals after it: no second collection without new work.
    const from = intervals();
    while (intervals() < from + 6) await tick();
    expect(calls).toHaveLength(1);
    busy(150);
    await tick();
    while (calls.length < 2) await tick();
  });

  it('counts the work done before it started, as a server start-up is', async () => {
    busy(150);
    const { calls, intervals } = watch(3);
    while (calls.length === 0 && intervals() < 20) await tick();
    expect(calls).toHaveLength(1);
  });

  it('does not collect in a pause between bursts of work, shorter than its quiet intervals', async () => {
    const { calls, intervals } = watch(6);
    // Bursts a pause of about two intervals apart: work enough to collect after, never quiet enough.
    for (let burst = 0; burst < 5; burst++) {
      busy(150);
      const from = intervals();
      while (intervals() < from + 2) await tick();
    }
    expect(calls).toHaveLength(0);
    // Then a real quiet spell: one collection.
    while (calls.length === 0) await tick();
  });
});
