// The topic ingestion publishes new issue batches to and webhooks/subscriptions consume.
// In-process by default; Redis-backed when REDIS_URL is set, so every instance hears every batch.
import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { newRedis, reconnectBackoff, watchRedisClients } from './redis.js';

/** One published batch: the event row id and the ids of the issues it made new. */
export interface NewIssuesEvent {
  eventId: string;
  issueIds: string[];
}

/**
 * Where Subscription.newIssues hears published batches: the live pub/sub, or (the webhook
 * dispatcher's replay) events read back from the database.
 */
export interface NewIssuesSource {
  subscribe(topic: 'newIssues'): AsyncIterable<NewIssuesEvent>;
}

/** Yoga's pub/sub plus `publishNewIssues`, which resolves once the event is handed over and rejects if it was not. */
export type IssuePubSub = ReturnType<typeof createIssuePubSub>['pubsub'];

const topic = 'newIssues';

/**
 * How long a publish may wait for Redis. One that hangs (a Redis that accepts and never answers)
 * fails after this, and the event stays in the outbox: an admin ingest, which relays its events
 * before answering, answers after about this long instead of never.
 */
export const PUBLISH_TIMEOUT_MS = 1000;

/** In-process without a Redis URL; else on the channel `<redisKeyPrefix>newIssues`. */
export function createIssuePubSub(redis: Pick<Config, 'redisUrl' | 'redisKeyPrefix'> = { redisUrl: undefined, redisKeyPrefix: '' }, log?: Logger) {
  if (!redis.redisUrl) {
    // Every webhook filter group and every SSE subscriber is a listener: no leak warning at 10.
    const eventTarget = new EventTarget();
    setMaxListeners(Infinity, eventTarget);
    const pubsub = createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget });
    const publishNewIssues = async (event: NewIssuesEvent) => pubsub.publish(topic, event);
    return { pubsub: Object.assign(pubsub, { publishNewIssues }), close: async () => {}, onReconnect: (_listener: () => void) => {} };
  }
  const options = { maxRetriesPerRequest: 3, retryStrategy: reconnectBackoff };
  const publishClient = newRedis(redis.redisUrl, { ...options, commandTimeout: PUBLISH_TIMEOUT_MS });
  // Subscriptions are renewed by the event target after every reconnection (see there).
  const subscribeClient = newRedis(redis.redisUrl, { ...options, autoResubscribe: false });
  watchRedisClients('pub/sub', [publishClient, subscribeClient], log);
  const channel = redis.redisKeyPrefix + topic;
  const eventTarget = redisEventTarget(publishClient, subscribeClient, redis.redisKeyPrefix, log);
  const pubsub = createPubSub<{ newIssues: [NewIssuesEvent] }>({ eventTarget });
  return {
    // Awaited, unlike Yoga's publish, which drops the Redis reply: the relay must know whether the
    // event was handed over, or it would be lost.
    pubsub: Object.assign(pubsub, {
      // While Redis is away it fails at once rather than after ioredis's retries (about 10 s, which
      // an admin ingest answering after its commit used to wait): the event stays in the outbox and
      // the relay's timer publishes it once Redis is back.
      publishNewIssues: async (event: NewIssuesEvent) => {
        if (publishClient.status !== 'ready') throw new Error('redis pub/sub: not connected; the relay publishes the event later');
        await publishClient.publish(channel, JSON.stringify(event)).catch((err: Error) => {
          // A connection that does not answer is as good as lost: a new one becomes ready (and
          // tells onReconnect's listeners) once Redis answers again.
          if (/timed? ?out/i.test(err.message)) publishClient.disconnect(true);
          throw err;
        });
      },
    }),
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
    /** Calls `listener` whenever publishing is possible again after an outage (the relay then publishes what waited). */
    onReconnect: (listener: () => void) => {
      let lost = false;
      publishClient.on('close', () => (lost = true));
      publishClient.on('ready', () => {
        if (!lost) return;
        lost = false;
        listener();
      });
    },
  };
}

/**
 * Yoga's event target over Redis pub/sub, written here because @graphql-yoga/redis-event-target
 * leaves every Redis reply unhandled (a SUBSCRIBE during an outage rejected and ended the process)
 * and has no channel prefix. A SUBSCRIBE that fails is not retried on its own: every listened topic
 * is subscribed again whenever the connection becomes ready (SUBSCRIBE is idempotent).
 */
function redisEventTarget(publishClient: Redis, subscribeClient: Redis, prefix: string, log: Logger | undefined): EventTarget {
  const listeners = new Map<string, Set<EventListenerOrEventListenerObject>>();
  const subscribe = (name: string) =>
    subscribeClient.subscribe(prefix + name).catch((err: Error) => {
      log?.debug('redis pub/sub: subscribe failed; renewed once redis is back', { channel: prefix + name, error: err.message });
    });
  subscribeClient.on('ready', () => {
    for (const name of listeners.keys()) void subscribe(name);
  });
  subscribeClient.on('message', (channel: string, message: string) => {
    const callbacks = channel.startsWith(prefix) ? listeners.get(channel.slice(prefix.length)) : undefined;
    if (!callbacks) return;
    let detail: unknown;
    try {
      detail = JSON.parse(message);
    } catch {
      log?.warn('redis pub/sub: ignored a message that is not JSON', { channel });
      return;
    }
    for (const callback of callbacks) {
      const event = new CustomEvent(channel.slice(prefix.length), { detail });
      if (typeof callback === 'function') callback(event);
      else callback.handleEvent(event);
    }
  });
  return {
    addEventListener(name: string, callback: EventListenerOrEventListenerObject | null) {
      if (!callback) return;
      let callbacks = listeners.get(name);
      if (!callbacks) {
        listeners.set(name, (callbacks = new Set()));
        void subscribe(name);
      }
      callbacks.add(callback);
    },
    removeEventListener(name: string, callback: EventListenerOrEventListenerObject | null) {
      const callbacks = listeners.get(name);
      if (!callback || !callbacks?.delete(callback) || callbacks.size > 0) return;
      listeners.delete(name);
      // Failing during an outage is fine: a reconnection renews only the topics still listened to.
      subscribeClient.unsubscribe(prefix + name).catch(() => {});
    },
    dispatchEvent(event: Event) {
      const detail = (event as CustomEvent).detail;
      publishClient.publish(prefix + event.type, JSON.stringify(detail ?? null)).catch((err: Error) => {
        log?.warn('redis pub/sub: publish failed', { channel: prefix + event.type, error: err.message });
      });
      return true;
    },
  };
}
