import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { RateLimitStore } from './http/rate-limit-store.js';
import type { PrismaClient } from './generated/prisma/client.js';
import type { Logger } from './log.js';
import type { IssuePubSub } from './pubsub.js';

/** Long-lived services shared by every request. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  pubsub: IssuePubSub;
  /** Where the rate limit counts requests; this process's memory when absent. */
  rateLimitStore?: RateLimitStore;
}

/** What every resolver receives. */
export interface Context extends Services {
  prisma: PrismaClient;
  request: Request;
  requestId: string;
}
