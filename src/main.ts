// Process entry: environment -> config -> database -> app -> listen; graceful shutdown.
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { DataDirInUseError } from './db/client.js';
import { openConfiguredDatabase } from './db/open.js';
import { seedSampleData } from './db/seed.js';
import { startDigestSchedule } from './digest/schedule.js';
import { createRateLimitStore } from './http/redis-rate-limit-store.js';
import { createHttpServer } from './http/server.js';
import { startRelay } from './ingest/relay.js';
import { createLogger } from './log.js';
import { createIssuePubSub } from './pubsub.js';
import { createDispatcher } from './webhooks/dispatcher.js';
import { createDeliveryWorker } from './webhooks/worker.js';

const config = loadConfigOrExit();

const log = createLogger(config.logLevel);

// A stop asked for during start-up (migrations, the first seed) waits for start-up to finish, so
// neither is cut in half; a second signal ends the process at once.
let stopAsked: string | undefined;
let shutdown = (signal: string) => {
  if (stopAsked) process.exit(1);
  stopAsked = signal;
  log.info('stopping once start-up has finished', { signal });
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
const db = await openConfiguredDatabase(config, log).catch((err: unknown) => {
  if (!(err instanceof DataDirInUseError)) throw err;
  console.error(`secwire: ${err.message}`);
  process.exit(1);
});
const { pubsub, close: closePubSub } = createIssuePubSub(config.redisUrl, log);
if (config.seedSampleData) await seedSampleData({ prisma: db.prisma, pubsub, log });
const rateLimitStore = await createRateLimitStore(config.redisUrl, log);
const services = { config, db, log, pubsub };
const app = createApp({ ...services, rateLimitStore });

// Listen before starting background work: a taken port ends the process before it sends anything.
const server = createHttpServer(app);
try {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
} catch (err) {
  console.error(`secwire: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  await Promise.all([closePubSub(), rateLimitStore.close()]);
  await db.close();
  process.exit(1);
}
// The port actually bound (PORT=0 picks a free one).
const { port } = server.address() as AddressInfo;
log.info('secwire listening', { url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`, database: db.kind });

// Webhooks: the worker sends what is due (left over from before a restart too); the dispatcher
// turns published batches into deliveries (replaying what a crash left undispatched) and wakes the
// worker when it writes some. It subscribes before the relay starts publishing.
const worker = createDeliveryWorker(services, { allowPrivateTargets: config.webhookAllowPrivateTargets });
const dispatcher = createDispatcher(services, { onDeliveries: () => worker.wake() });
worker.start();
await dispatcher.start();

// The relay also publishes, at once, whatever events a crash left unpublished.
const relay = startRelay(db.prisma, pubsub, log);
const digests = startDigestSchedule(db.prisma, log);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  // Stop accepting, let in-flight requests and deliveries finish, then release the database.
  server.close();
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
  await new Promise<void>((resolve) => server.once('close', () => resolve()));
  clearTimeout(force);
  await Promise.all([relay.stop(), digests.stop()]);
  await dispatcher.stop();
  await worker.stop();
  await closePubSub();
  await rateLimitStore.close();
  await db.close();
  process.exit(0);
}
shutdown = (signal) => void stop(signal);
if (stopAsked) shutdown(stopAsked);
