// The daily digest inside the server: shortly after each UTC midnight it writes the day that just
// ended. At start it also writes yesterday's digest when it is missing (the server was down at
// midnight). Several instances may all do it: the write is an upsert by date.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';
import { yesterdayUtc } from '../dates.js';
import { generateDigest } from './generate.js';
import { hasDigest } from './store.js';

/** Minutes past UTC midnight, so late-arriving items of the day just ended are included. */
const delayAfterMidnightMs = 5 * 60_000;

export function msUntilNextRun(now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + delayAfterMidnightMs;
  return (today > now.getTime() ? today : today + 24 * 3600_000) - now.getTime();
}

export function startDigestSchedule(prisma: PrismaClient, log: Logger): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const run = async (onlyIfMissing: boolean) => {
    const date = yesterdayUtc();
    if (onlyIfMissing && (await hasDigest(prisma, date))) return;
    const digest = await generateDigest(prisma, date);
    log.info('digest generated', { date, issueCount: digest.issueCount });
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run(false)
        .catch((err) => log.error('digest generation failed', { err }))
        .finally(schedule);
    }, msUntilNextRun(new Date()));
    timer.unref();
  };

  running = run(true).catch((err) => log.error('digest generation failed', { err }));
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
