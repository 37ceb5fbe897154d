// Webhook fairness, PGlite and PostgreSQL in one run:
//   npx tsx bench/webhooks-fairness.ts [--hanging 200] [--batches 40] [--every-ms 500] [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
// The real dispatcher and worker in-process with production settings (16 deliveries in flight,
// 15 s timeout). One key owns `--hanging` webhooks at a receiver that never answers; another key
// owns one webhook at a healthy receiver. Every batch published reaches all of them; the figure is
// the healthy receiver's latency from publish to receipt (p50 / p99 / max), which must stay < 2 s.
// Results replace the "Webhook fairness" section of bench/components.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { testConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrator.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { createWebhookDispatcher } from '../src/schema/issue-stream.js';
import { newSecret } from '../src/webhooks/signing.js';
import { createDeliveryWorker } from '../src/webhooks/worker.js';
import { createReceiver, testCertificate } from '../test/helpers/https-receiver.js';
import { makeIssue } from '../test/helpers/issues.js';
import { writeReadmeSection } from './readme.js';
import { emptyPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    hanging: { type: 'string', default: '200' },
    batches: { type: 'string', default: '40' },
    'every-ms': { type: 'string', default: '500' },
    'database-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  },
});
const hangingCount = Number(values.hanging);
const batchCount = Number(values.batches);
const everyMs = Number(values['every-ms']);

interface Result {
  p50: number;
  p99: number;
  max: number;
  /** Attempts the hanging receiver received (each held until its 15 s timeout). */
  hangingReceived: number;
}

async function run(db: Database): Promise<Result> {
  await migrate(db.adapterFactory);
  const log = createLogger('silent');
  const { pubsub, close } = createIssuePubSub();
  const services = { config: testConfig({ webhookAllowPrivateTargets: true }), db, log, pubsub };
  let releaseAll = () => {};
  const released = new Promise<void>((resolve) => (releaseAll = resolve));
  const hanging = await createReceiver(async () => (await released, 204));
  const healthy = await createReceiver(() => 204);
  await db.prisma.webhook.createMany({
    data: [
      ...Array.from({ length: hangingCount }, (_, i) => ({ url: hanging.url(`/hang/${i}`), secret: newSecret(), ownerKeyHash: 'bench-hanging-key' })),
      { url: healthy.url('/healthy'), secret: newSecret(), ownerKeyHash: 'bench-healthy-key' },
    ],
  });
  const worker = createDeliveryWorker({ db, log }, { allowPrivateTargets: true, ca: testCertificate().cert });
  const dispatcher = createWebhookDispatcher(services, { onDeliveries: () => worker.wake() });
  await dispatcher.start();
  worker.start();
  const publishedAt = new Map<string, number>();
  const latencies: number[] = [];
  healthy.on('/healthy', (req) => {
    latencies.push(performance.now() - publishedAt.get(req.json.issues[0].title)!);
    return 204;
  });
  try {
    for (let b = 0; b < batchCount; b++) {
      const title = `fairness batch ${b}`;
      const issue = await db.prisma.issue.create({ data: makeIssue({ title }), select: { id: true } });
      const event = await db.prisma.issueEvent.create({ data: { issueIds: [issue.id] } });
      publishedAt.set(title, performance.now());
      await pubsub.publishNewIssues({ eventId: event.id, issueIds: [issue.id] });
      await new Promise((r) => setTimeout(r, everyMs));
    }
    await healthy.waitFor((reqs) => reqs.length >= batchCount, 120_000);
  } finally {
    releaseAll();
    await dispatcher.stop();
    await worker.stop();
    await hanging.close();
    await healthy.close();
    await close();
  }
  const hangingReceived = hanging.requests.length;
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)!, hangingReceived };
}

const loadAtStart = loadavg()[0]!;
const pgliteDir = await mkdtemp(join(tmpdir(), 'secwire-bench-fairness-'));
const pglite = await openDatabase({ kind: 'pglite', dataDir: pgliteDir });
const pgliteResult = await run(pglite);
await pglite.close();
await rm(pgliteDir, { recursive: true, force: true });
console.log('pglite', pgliteResult);

const scratch = await emptyPostgres(values['database-url']!);
const postgres = await openDatabase({ kind: 'postgres', url: scratch.url });
const pgResult = await run(postgres);
await postgres.close();
await scratch.drop();
console.log('postgres', pgResult);

const s = (ms: number) => (ms / 1000).toFixed(2);
const row = (name: string, r: Result) => `| ${name} | ${s(r.p50)} | **${s(r.p99)}** | ${s(r.max)} | ${r.hangingReceived} |`;
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- webhooks-fairness:begin -->
## Webhook fairness (\`npx tsx bench/webhooks-fairness.ts --hanging ${hangingCount} --batches ${batchCount} --every-ms ${everyMs}\`)

Measured ${when} UTC on this machine (2 shared cores, load average ${loadAtStart.toFixed(0)} at the start and
${loadavg()[0]!.toFixed(0)} at the end). The real dispatcher and worker in one process with production
settings (16 deliveries in flight, 15 s timeout). One key owns ${hangingCount} webhooks at an HTTPS
receiver that never answers; another key owns one webhook at a healthy receiver. ${batchCount} batches,
one every ${everyMs} ms, each for all ${hangingCount + 1} webhooks. Seconds from publish to the healthy
receiver having the batch, and the attempts the hanging receiver got meanwhile:

| database | p50 s | p99 s | max s | attempts at the hanging receiver |
|---|---|---|---|---|
${row('PGlite', pgliteResult)}
${row('PostgreSQL', pgResult)}

Before the fair claim, the oldest due rows were claimed first, so the hanging key's deliveries
took all 16 slots and everyone else waited for their 15 s timeouts (the probe of issue #11 saw
142 s). Now one key, and one host, hold at most 8 of the 16 slots (2 per webhook), and keys take
turns for the rest.
<!-- webhooks-fairness:end -->`;

await writeReadmeSection('webhooks-fairness', section);
console.log(section);
process.exit(0);
