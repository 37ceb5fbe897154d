// The shared rate-limit store: one sorted set per client in Redis (score = request time), trimmed,
// counted and appended by one Lua script, so instances behind a load balancer share one budget and
// two of them can never both take a client's last slot.
import { randomBytes } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import type { Logger } from '../log.js';
import { newRedis, reconnectBackoff } from '../redis.js';
import { MemoryRateLimitStore, type Clock, type RateLimitStore, type WindowHit } from './rate-limit-store.js';

// KEYS[1] the client's set; ARGV: now, window (ms), limit, a unique member for this request, its
// cost (one member per unit, suffixed :1, :2, ...). Returns {admitted (0|1), score of each earlier
// entry still in the window, oldest first}.
const hitScript = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cost = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local earlier = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local result = { 0 }
for i = 2, #earlier, 2 do result[#result + 1] = earlier[i] end
if #result - 1 + cost <= tonumber(ARGV[3]) then
  for i = 1, cost do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
  result[1] = 1
end
redis.call('PEXPIRE', KEYS[1], window)
return result
`;

// ioredis's documented way to type a command added with defineCommand.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    secwireRateLimitHit(key: string, now: number, windowMs: number, limit: number, member: string, cost: number): Result<[number, ...string[]], Context>;
  }
}

export interface RedisStoreOptions {
  /** Prepended to every key; tests use a unique one per run. */
  keyPrefix?: string;
  clock?: Clock;
  /** A command that takes longer than this fails (and the fail-open store falls back). */
  commandTimeoutMs?: number;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly clock: Clock;
  // Members must be unique per request: two requests in the same millisecond are two entries.
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(url: string, options: RedisStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'secwire:ratelimit:';
    this.clock = options.clock ?? Date.now;
    this.redis = newRedis(url, {
      lazyConnect: true,
      // Fail at once while disconnected instead of queueing: a request must not wait for Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      retryStrategy: reconnectBackoff,
    });
    this.redis.defineCommand('secwireRateLimitHit', { numberOfKeys: 1, lua: hitScript });
  }

  /** Connects; rejects when Redis is unreachable (ioredis keeps retrying in the background). */
  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<WindowHit> {
    const now = this.clock();
    const member = `${now}:${this.instance}:${(this.sequence = (this.sequence + 1) % 1e9)}`;
    const [admitted, ...earlier] = await this.redis.secwireRateLimitHit(this.keyPrefix + key, now, windowMs, limit, member, cost);
    return { admitted: admitted === 1, now, earlier: earlier.map(Number) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/**
 * Redis when it answers, this process's own window when it does not: an outage must not take the
 * API down, so the limit degrades to per instance (logged once), and Redis is used again as soon as
 * ioredis has reconnected (logged once).
 */
export class FailOpenRateLimitStore implements RateLimitStore {
  private readonly fallback: MemoryRateLimitStore;
  private degraded = false;

  constructor(
    readonly primary: RateLimitStore,
    private readonly log: Logger,
    clock: Clock = Date.now,
  ) {
    this.fallback = new MemoryRateLimitStore(clock);
  }

  /** True while requests are limited per process because the shared store is unreachable. */
  get isDegraded(): boolean {
    return this.degraded;
  }

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<WindowHit> {
    try {
      const hit = await this.primary.hit(key, limit, windowMs, cost);
      if (this.degraded) {
        this.degraded = false;
        this.log.info('rate limit: shared store reachable again, limiting across instances');
      }
      return hit;
    } catch (err) {
      this.reportOutage(err);
      return this.fallback.hitNow(key, limit, windowMs, cost);
    }
  }

  /** Logs the start of an outage (once until the store answers again). */
  reportOutage(err: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.log.warn('rate limit: shared store unreachable, limiting per process until it returns', {
      error: err instanceof Error ? err.message : String(err),
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}

/**
 * The store for a configuration: this process's memory without REDIS_URL, else Redis with a
 * per-process fallback. Never throws for an unreachable Redis; the app starts degraded instead.
 */
export async function createRateLimitStore(redisUrl: string | undefined, log: Logger, options: RedisStoreOptions = {}): Promise<RateLimitStore> {
  if (!redisUrl) return new MemoryRateLimitStore(options.clock);
  const redis = new RedisRateLimitStore(redisUrl, options);
  // ioredis reports every failed reconnection attempt; the fail-open store logs the outage once.
  redis.redis.on('error', (err: Error) => log.debug('rate limit: redis connection error', { error: err.message }));
  const store = new FailOpenRateLimitStore(redis, log, options.clock);
  await redis.connect().catch((err: unknown) => store.reportOutage(err));
  return store;
}
