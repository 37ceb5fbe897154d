// The topic ingestion publishes new issue batches to and webhooks/subscriptions consume.
// In-process by default; Redis-backed when REDIS_URL is set, so every instance hears every batch.
import { setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';

/** One published batch: the event row id and the ids of the issues it made new. */
export interface NewIssuesEvent {
  eventId: string;
  issueIds: string[];
}

export type IssuePubSub = ReturnType<typeof createIssuePubSub>['pubsub'];

export function createIssuePubSub(redisUrl?: string) {
  if (!redisUrl) {
    // Every webhook filter group and every SSE subscriber is a listener: no leak warning at 10.
    const eventTarget = new EventTarget();
    setMaxListeners(Infinity, eventTarget);
    return { pubsub: createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget }), close: async () => {} };
  }
  const publishClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return {
    pubsub: createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget }),
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
