import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { IssueCounter } from './db/count-cache.js';
import type { PrismaClient } from './generated/prisma/client.js';
import type { Viewer } from './keys/viewer.js';
import type { Logger } from './log.js';
import type { IssuePubSub, NewIssuesSource } from './pubsub.js';
import type { RegistryLookups } from './registry/runner.js';

/** Long-lived services shared by every request. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  pubsub: IssuePubSub;
  /** Aborted when the process starts shutting down: long work (an ingest) stops at its next step. */
  stopping?: AbortSignal;
  /** Present when REGISTRY_LOOKUP is on: ingests ask it about the packages they stored. */
  registryLookups?: RegistryLookups;
}

/** What every resolver receives. */
export interface Context extends Services {
  prisma: PrismaClient;
  /** Issue counts, kept per filter and data version (db/count-cache.ts). */
  countIssues: IssueCounter;
  /** What Subscription.newIssues listens to: the pub/sub, or the webhook dispatcher's replay. */
  newIssues: NewIssuesSource;
  /** Who is calling (built once per request, on its edge context: http/edge.ts). */
  viewer: Viewer;
  requestId: string;
  /**
   * Takes one of the open-subscription slots of the request's client (throws a 429 when none is
   * left); resolves to the function that gives it back. Absent for internal consumers (the webhook
   * dispatcher), which are not limited.
   */
  takeSubscriptionSlot?: () => Promise<() => void>;
  /**
   * Counts the rest of this request's rate-limit units once its work is known (a watched stack's
   * size: stacks/cost.ts stackWorkCost), before the work runs; throws the 429 when they do
   * not fit. Absent for internal consumers and without a limit.
   */
  chargeWork?: (cost: number) => Promise<void>;
}
