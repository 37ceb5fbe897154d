// Webhook fan-out, PGlite and PostgreSQL side by side in one run:
//   npx tsx bench/webhooks-fanout.ts [--webhooks 1000] [--items 10] [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
// The real app, dispatcher and worker in-process (production settings: concurrency 16, 15 s
// timeout), one HTTPS receiver on 127.0.0.1 standing for every webhook (a path each), a fresh
// database of each kind. Time from POST /api/v1/admin/ingest of a batch to the last webhook
// receiving it, in two shapes:
//   - one filter: every webhook without filters (one dispatch group)
//   - 100 filters: webhooks spread over 100 vendor filters (100 dispatch groups, each running the
//     subscription's match query per event)
// Results replace the "Webhook fan-out" section of bench/components.md.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { migrate } from '../src/db/migrator.js';
import { sha256Hex } from '../src/keys/bearer.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { createWebhookDispatcher } from '../src/schema/issue-stream.js';
import { newSecret } from '../src/webhooks/signing.js';
import { createDeliveryWorker } from '../src/webhooks/worker.js';
import { createReceiver, testCertificate } from '../test/helpers/https-receiver.js';
import { emptyPostgres } from './scratch-databases.js';
import { writeReadmeSection } from './readme.js';

const { values } = parseArgs({
  options: {
    webhooks: { type: 'string', default: '1000' },
    items: { type: 'string', default: '10' },
    'database-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  },
});
const webhookCount = Number(values.webhooks);
const itemCount = Number(values.items);
const adminUrl = values['database-url']!;
const adminKey = 'bench-admin-key';
const vendorsPerItem = Math.ceil(100 / itemCount);

interface Shape {
  label: string;
  filters: (i: number) => Record<string, unknown>;
}
const shapes: Shape[] = [
  { label: 'one filter (none)', filters: () => ({}) },
  { label: '100 vendor filters', filters: (i) => ({ vendor: `benchvendor-${i % 100}` }) },
];

/** Relevant native items; between them they name benchvendor-0..99, so every filter matches. */
function batch(run: string) {
  return Array.from({ length: itemCount }, (_, k) => ({
    title: `Prompt injection in an LLM agent framework (${run} #${k})`,
    url: `https://example.org/bench/${run}/${k}`,
    publishedAt: '2025-06-01',
    type: 'vulnerability',
    summary: 'Crafted content makes the LLM agent call tools it should not.',
    vendors: Array.from({ length: vendorsPerItem }, (_, j) => `benchvendor-${k * vendorsPerItem + j}`).filter((v) => Number(v.split('-')[1]) < 100),
  }));
}

interface Result {
  ingestMs: number;
  outboxMs: number;
  lastMs: number;
  deliveries: number;
}

async function runShape(db: Database, shape: Shape): Promise<Result> {
  const log = createLogger('silent');
  const config = testConfig({ webhookAllowPrivateTargets: true, adminApiKey: adminKey });
  const { pubsub, close } = createIssuePubSub();
  const services = { config, db, log, pubsub };
  const app = createApp(services);
  const receiver = await createReceiver(() => 204);
  await db.prisma.webhook.deleteMany();
  await db.prisma.webhook.createMany({
    data: Array.from({ length: webhookCount }, (_, i) => ({
      url: receiver.url(`/w/${i}`),
      secret: newSecret(),
      ownerKeyHash: sha256Hex('bench'),
      filters: shape.filters(i) as Prisma.InputJsonObject,
    })),
  });
  const worker = createDeliveryWorker({ db, log }, { allowPrivateTargets: true, ca: testCertificate().cert });
  let written = 0;
  let outboxAt = 0;
  const dispatcher = createWebhookDispatcher(services, {
    onDeliveries: (n) => {
      written += n;
      if (written >= webhookCount && !outboxAt) outboxAt = performance.now();
      worker.wake();
    },
  });
  await dispatcher.start();
  worker.start();
  try {
    const start = performance.now();
    const res = await app.fetch(
      new Request('http://localhost/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
        body: JSON.stringify(batch(randomBytes(4).toString('hex'))),
      }),
    );
    const ingestMs = performance.now() - start;
    const body = (await res.json()) as { data: { created: number } };
    if (body.data.created !== itemCount) throw new Error(`ingest created ${body.data.created} of ${itemCount}`);
    await receiver.waitFor((reqs) => new Set(reqs.map((r) => r.path)).size >= webhookCount, 600_000);
    const lastMs = performance.now() - start;
    return { ingestMs, outboxMs: outboxAt - start, lastMs, deliveries: receiver.requests.length };
  } finally {
    await dispatcher.stop();
    await worker.stop();
    await receiver.close();
    await close();
  }
}

async function runAll(db: Database): Promise<Result[]> {
  await migrate(db.adapterFactory);
  const results: Result[] = [];
  for (const shape of shapes) {
    results.push(await runShape(db, shape));
    console.log(`${db.kind} ${shape.label}: ${JSON.stringify(results.at(-1))}`);
  }
  return results;
}

const loadAtStart = loadavg()[0]!;
const pgliteDir = await mkdtemp(join(tmpdir(), 'secwire-bench-fanout-'));
const pglite = await openDatabase({ kind: 'pglite', dataDir: pgliteDir });
const pgliteResults = await runAll(pglite);
await pglite.close();
await rm(pgliteDir, { recursive: true, force: true });

const scratch = await emptyPostgres(adminUrl);
const postgres = await openDatabase({ kind: 'postgres', url: scratch.url });
const pgResults = await runAll(postgres);
await postgres.close();
await scratch.drop();

const s = (ms: number) => (ms / 1000).toFixed(2);
const cell = (r: Result) => `${s(r.ingestMs)} / ${s(r.outboxMs)} / **${s(r.lastMs)}**`;
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- webhooks-fanout:begin -->
## Webhook fan-out (\`npx tsx bench/webhooks-fanout.ts --webhooks ${webhookCount} --items ${itemCount}\`)

Measured ${when} UTC, load average ${loadAtStart.toFixed(1)} to ${loadavg()[0]!.toFixed(1)}. Seconds from the ingest POST to the ingest
answer / every outbox row written / **the last of ${webhookCount.toLocaleString('en')} webhooks receiving it** (all at one
receiver host, one owner key).

| code | ${shapes.map((shape) => `PGlite, ${shape.label}`).join(' | ')} | ${shapes.map((shape) => `PostgreSQL, ${shape.label}`).join(' | ')} |
|---|${shapes.map(() => '---|---|').join('')}
| ${commit} | ${pgliteResults.map(cell).join(' | ')} | ${pgResults.map(cell).join(' | ')} |
<!-- webhooks-fanout:end -->`;

await writeReadmeSection('webhooks-fanout', section);
console.log(section);
process.exit(0);
