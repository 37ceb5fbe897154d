// The topic ingestion publishes new issue batches to and webhooks/subscriptions consume.
// In-process by default; Redis-backed when REDIS_URL is set, so every instance hears every batch.
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
    return { pubsub: createPubSub<{ newIssues: [NewIssuesEvent] }>(), close: async () => {} };
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
