// The topic ingestion publishes new issue batches to and webhooks/subscriptions consume.
// In-process by default; Redis-backed when REDIS_URL is set, so every instance hears every batch.
import { setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';
import type { Logger } from './log.js';

/** One published batch: the event row id and the ids of the issues it made new. */
export interface NewIssuesEvent {
  eventId: string;
  issueIds: string[];
}

export type IssuePubSub = ReturnType<typeof createIssuePubSub>['pubsub'];

const topic = 'newIssues';

export function createIssuePubSub(redisUrl?: string, log?: Logger) {
  if (!redisUrl) {
    // Every webhook filter group and every SSE subscriber is a listener: no leak warning at 10.
    const eventTarget = new EventTarget();
    setMaxListeners(Infinity, eventTarget);
    const pubsub = createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget });
    return { pubsub: withConfirmedPublish(pubsub, async (event) => pubsub.publish(topic, event)), close: async () => {} };
  }
  const publishClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  // ioredis reconnects by itself; without a listener it would print each failure to stderr.
  for (const client of [publishClient, subscribeClient]) client.on('error', (err) => log?.warn('redis pub/sub connection error', { err }));
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  const pubsub = createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget });
  return {
    // The same channel and JSON the event target writes, but awaited: Yoga's publish drops the
    // Redis reply, so a failure would be an unhandled rejection and the event silently lost.
    pubsub: withConfirmedPublish(pubsub, async (event) => {
      await publishClient.publish(topic, JSON.stringify(event));
    }),
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}

/** Adds `publishNewIssues`, which resolves once the event is handed over and rejects if it was not. */
function withConfirmedPublish<T extends object>(pubsub: T, publishNewIssues: (event: NewIssuesEvent) => Promise<void>) {
  return Object.assign(pubsub, { publishNewIssues });
}
