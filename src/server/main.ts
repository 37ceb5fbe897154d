// Process entry: environment -> config -> database -> app -> listen; graceful shutdown.
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { loadConfigOrExit } from '../config.js';
import { DatabaseOpenError, openConfiguredDatabase } from '../db/open.js';
import { startDigestSchedule } from '../digest/schedule.js';
import { createRateLimitStore } from '../http/redis-rate-limit-store.js';
import { createHttpServer, drain } from '../http/server.js';
import { currentRequestId } from '../http/request-id.js';
import { startRelay } from '../ingest/relay.js';
import { startIdleCollection, type Collect } from '../idle-collection.js';
import { createLogger } from '../log.js';
import { createIssuePubSub } from '../pubsub.js';
import { logTemplateSeed, sampleDataDate, seedSampleData } from './seed.js';
import { logFeedAtStart } from '../sources/summary.js';
import { startRegistryLookups } from '../registry/runner.js';
import { createWebhookDispatcher } from '../schema/issue-stream.js';
import { createDeliveryWorker } from '../webhooks/worker.js';

const config = loadConfigOrExit();

const log = createLogger(config.logLevel);

// A failure that no handler caught (a rejected promise inside a library, an error event nobody
// listens to) is logged with the request it came from, and the process keeps serving everyone
// else: node's default would end it, and one request must never end the process.
process.on('unhandledRejection', (err) => log.error('unhandled rejection', { requestId: currentRequestId(), err }));
process.on('uncaughtException', (err) => log.error('uncaught exception', { requestId: currentRequestId(), err }));

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
/**
 * Start-up that cannot go on (the database missing, unreachable or not migrated, the sample data
 * unreadable): one line on stderr and exit code 1, so a supervisor sees a failure and an operator
 * reads what to fix. What is not an expected problem is logged once, with its stack, as well.
 */
function cannotStart(err: unknown): never {
  if (!(err instanceof DatabaseOpenError)) log.error('unexpected error', { err });
  const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
  console.error(`secwire: cannot start: ${reason}`);
  process.exit(1);
}

const db = await openConfiguredDatabase(config, log, { seeded: config.seedSampleData && config.seedFromTemplate }).catch(cannotStart);
const { pubsub, close: closePubSub, onReconnect } = createIssuePubSub(config, log);
if (db.seededFromTemplate) logTemplateSeed(db.seededFromTemplate, log);
else if (config.seedSampleData) await seedSampleData({ prisma: db.prisma, pubsub, log, db }).catch(cannotStart);
const rateLimitStore = await createRateLimitStore(config.redisUrl, log, { keyPrefix: `${config.redisKeyPrefix}ratelimit:` });
const shuttingDown = new AbortController();
const registryLookups = config.registryLookup ? startRegistryLookups({ prisma: db.prisma, pubsub, log, db }, config.registryLookup) : undefined;
const services = { config, db, log, pubsub, stopping: shuttingDown.signal, registryLookups };
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
// Where bearer keys come from, so a 401 on the first webhook registration is not a mystery.
log.info('bearer keys', {
  webhooks: config.webhookApiKey
    ? 'WEBHOOK_API_KEY from the environment, or keys issued with `npm run cli -- keys create` or POST /api/v1/admin/keys'
    : `no WEBHOOK_API_KEY set: issue a key with POST /api/v1/admin/keys (bearer ADMIN_API_KEY) or \`npm run cli -- keys create\`${db.kind === 'pglite' ? ' (server stopped: the embedded database serves one process)' : ''}`,
  admin: config.adminApiKey ? 'ADMIN_API_KEY from the environment' : 'no ADMIN_API_KEY set: /api/v1/admin/* answers 401',
});

// Webhooks: the worker sends what is due (left over from before a restart too); the dispatcher
// turns published batches into deliveries (replaying what a crash left undispatched) and wakes the
// worker when it writes some. It subscribes before the relay starts publishing.
const worker = createDeliveryWorker(services, { allowPrivateTargets: config.webhookAllowPrivateTargets });
const dispatcher = createWebhookDispatcher(services, { onDeliveries: () => worker.wake() });
worker.start();
await dispatcher.start();

// The relay also publishes, at once, whatever events a crash left unpublished.
const relay = startRelay(db.prisma, pubsub, log);
// Events an ingest could not publish during a Redis outage go out as soon as Redis is back.
onReconnect(() => relay.wake());
const digests = startDigestSchedule(db.prisma, log);
// Start-up never waits for a source: the first syncs run in the background, and until they bring
// something the feed is what the database holds (the bundled sample on a first start), said so.
await logFeedAtStart(db.prisma, log, {
  sources: config.sources,
  from: config.sourcesFrom === 'default' ? 'the default list (data/sources/default-sources.json; SOURCES=[] turns it off)' : config.sourcesFrom,
  ...(config.seedSampleData ? { sampleDate: await sampleDataDate() } : {}),
}).catch((err) => log.error('start-up summary not written', { err }));
// The sync (its readers, and the ingest pipeline with the classifier) is loaded only when there is something to sync.
const sources = config.sources.length
  ? (await import('../sources/schedule.js')).startSourceSchedule({ prisma: db.prisma, pubsub, log, db }, config.sources, {
      allowPrivate: config.sourcesAllowPrivate,
      retryMs: config.sourcesRetryMs,
      onChanged: () => registryLookups?.request(),
    })
  : { stop: async () => {} };
// `npm start` passes --expose-gc for this; started without it, V8 keeps its own sizing.
const collect = (globalThis as { gc?: Collect }).gc;
const idleCollection = collect && startIdleCollection(collect);

async function stop(signal: string) {
  if (shuttingDown.signal.aborted) return;
  log.info('shutting down', { signal });
  // Stop accepting, stop long work at its next step, let in-flight requests and deliveries finish,
  // then release the database; all within the 30 s orchestrators usually allow.
  shuttingDown.abort();
  idleCollection?.stop();
  await drain(server, 15_000);
  // The app's own resources (the exports' temporary directory).
  await app.dispose();
  await Promise.all([relay.stop(), digests.stop(), sources.stop(), registryLookups?.stop()]);
  await dispatcher.stop();
  await worker.stop();
  await closePubSub();
  await rateLimitStore.close();
  await db.close();
  process.exit(0);
}
shutdown = (signal) => void stop(signal);
if (stopAsked) shutdown(stopAsked);
