// What every Redis connection of the process shares: reconnect attempts that back off, and an
// outage told once when it starts and once when it ends. ioredis reconnects by itself and emits an
// 'error' for every failed attempt; an error event nobody listens to would end the process.
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from './log.js';

/**
 * A new client. ioredis is loaded with the first one, so a process without REDIS_URL never loads
 * it: about 2 MB of heap (its code and its dependencies') for nothing (issue 15, 4619447).
 */
export function newRedis(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}

/** Milliseconds before reconnect attempt `attempt` (1, 2, ...): doubling from 100 ms up to 5 s. */
export function reconnectBackoff(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt - 1, 6), 5_000);
}

/**
 * Watches clients that serve one purpose together (`name` in the logs): one warning when the first
 * of them loses Redis, one line when all are ready again; each failed attempt in between is a
 * debug line only.
 */
export function watchRedisClients(name: string, clients: Redis[], log: Logger | undefined): void {
  const down = new Set<Redis>();
  let announced = false;
  for (const client of clients) {
    const lost = (error?: Error) => {
      down.add(client);
      if (error) log?.debug(`redis ${name}: connection error`, { error: error.message });
      if (announced) return;
      announced = true;
      log?.warn(`redis ${name}: unreachable, reconnecting with backoff`, error ? { error: error.message } : {});
    };
    client.on('error', (err: Error) => lost(err));
    client.on('reconnecting', () => lost());
    client.on('ready', () => {
      down.delete(client);
      if (!announced || down.size > 0) return;
      announced = false;
      log?.info(`redis ${name}: reachable again`);
    });
  }
}
