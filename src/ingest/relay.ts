// Publishes IssueEvent rows that ingest committed but nobody has published yet, then marks them.
// Publish happens before the mark commits, so a crash in between republishes the event on the
// next run instead of losing it; consumers dedupe on eventId (one delivery per webhook and event).
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';
import type { IssuePubSub } from '../pubsub.js';
import { relayBatchSize, relayNewIssueEvents } from './changes.js';

export async function relayEvents(prisma: PrismaClient, pubsub: IssuePubSub, log?: Logger): Promise<number> {
  let relayed = 0;
  for (;;) {
    const batch = await relayNewIssueEvents(prisma, (event) => pubsub.publishNewIssues(event));
    relayed += batch;
    if (batch < relayBatchSize) break;
  }
  if (relayed) log?.info('issue events relayed', { relayed });
  return relayed;
}

/** Pub/subs whose last relay failed: an outage is logged when it starts, not by every ingest during it. */
const failing = new WeakSet<IssuePubSub>();

/**
 * relayEvents for callers that go on whatever happens (an ingest, the timer): a failure leaves the
 * events in the outbox for a later run, and is logged once until a run succeeds again.
 */
export async function relayPending(prisma: PrismaClient, pubsub: IssuePubSub, log: Logger): Promise<number> {
  try {
    const relayed = await relayEvents(prisma, pubsub, log);
    if (failing.delete(pubsub)) log.info('issue event relay: publishing again');
    return relayed;
  } catch (err) {
    if (!failing.has(pubsub)) log.warn('issue event relay failed; events wait in the outbox for the next run', { err });
    failing.add(pubsub);
    return 0;
  }
}

/**
 * Relays now and then every `intervalMs`, to retry anything a failed publish left behind; `wake()`
 * relays at once (the pub/sub is reachable again).
 */
export function startRelay(prisma: PrismaClient, pubsub: IssuePubSub, log: Logger, intervalMs = 30_000): { stop(): Promise<void>; wake(): void } {
  // One run at a time: a slow run (Redis reconnecting) is not joined by the next tick.
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= relayPending(prisma, pubsub, log).finally(() => (running = undefined));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
    wake: tick,
  };
}
