// Watched stacks in the outbox path:
//   npm run bench -- stack-watch [--stacks 10000] [--components 50] [--issues 100] [--names 5000] [--db postgres|pglite]
// A fresh migrated database with `stacks` webhooks, each watching `components` PyPI purls drawn
// from `names` package names at versions 1.0.0..1.9.0, and a plain webhook of another key on a
// second HTTPS receiver (the healthy receiver). A batch of `issues` new issues, each affecting versions < 1.5.0
// of one package, is committed with its IssueEvent and published as ingestion does. Measured: time
// from the commit to the last outbox row enqueued (against the count worked out here from the
// generated stacks), this process's CPU over that time (the dispatcher, the worker and the
// database driver; PostgreSQL's own CPU is not counted), how many StackEntry rows the batch read,
// and the healthy receiver's latency (commit to receipt of a one-issue batch published every
// 200 ms) while the stack deliveries are matched and sent. Results replace the "Watched stacks" section
// of bench/components.md.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { sha256Hex } from '../src/keys/bearer.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { createWebhookDispatcher } from '../src/schema/issue-stream.js';
import { newSecret } from '../src/webhooks/signing.js';
import { createDeliveryWorker } from '../src/webhooks/worker.js';
import { makeIssue } from '../test/helpers/issues.js';
import { createReceiver, testCertificate } from '../test/helpers/https-receiver.js';
import { writeReadmeSection } from './readme.js';
import { scratchPGlite, scratchPostgres, type BenchDatabase } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    stacks: { type: 'string', default: '10000' },
    components: { type: 'string', default: '50' },
    issues: { type: 'string', default: '100' },
    names: { type: 'string', default: '5000' },
    db: { type: 'string', default: 'postgres' },
  },
});
const stackCount = Number(values.stacks);
const componentCount = Number(values.components);
const issueCount = Number(values.issues);
const nameCount = Number(values.names);

// A fixed pseudo-random sequence: every run builds the same stacks.
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const name = (n: number) => `benchpkg-${n}`;

const bench: BenchDatabase = values.db === 'pglite' ? await scratchPGlite() : await scratchPostgres();
const db: Database = bench.db;
const log = createLogger('silent');
const owner = sha256Hex('bench');

// ---- the stacks
const stackReceiver = await createReceiver(() => 204);
const healthyReceiver = await createReceiver(() => 204);
const hookIds = Array.from({ length: stackCount }, () => randomUUID());
const stacks = hookIds.map(() => {
  const picked = new Map<number, number>();
  while (picked.size < componentCount) picked.set(Math.floor(random() * nameCount), Math.floor(random() * 10));
  return [...picked].map(([n, minor]) => ({ n, version: `1.${minor}.0` }));
});
const setupStart = performance.now();
// Written with the driver in bulk (unnest): Prisma's createMany of 500,000 rows would dominate the run.
for (let i = 0; i < stackCount; i += 1000) {
  const ids = hookIds.slice(i, i + 1000);
  const chunk = stacks.slice(i, i + 1000);
  await bench.sql(
    `INSERT INTO "Webhook" ("id", "url", "secret", "ownerKeyHash", "subscribedAt", "updatedAt")
     SELECT id, url, md5(id::text), $3, now() - interval '1 minute', now() FROM unnest($1::uuid[], $2::text[]) AS x(id, url)`,
    [ids, ids.map((_, k) => stackReceiver.url(`/s/${i + k}`)), owner],
  );
  const entries = (k: number) => chunk[k]!.map((c) => `pkg:pypi/${name(c.n)}@${c.version}`);
  await bench.sql(`INSERT INTO "WatchedStack" ("webhookId", "components", "updatedAt") SELECT id, c, now() FROM unnest($1::uuid[], $2::jsonb[]) AS x(id, c)`, [
    ids,
    ids.map((_, k) => JSON.stringify(entries(k).map((entry) => ({ entry, ref: entry, name: entry })))),
  ]);
  const flat = ids.flatMap((id, k) => chunk[k]!.map((c) => [id, name(c.n), `pkg:pypi/${name(c.n)}@${c.version}`]));
  await bench.sql(`INSERT INTO "StackEntry" ("webhookId", "key", "entry") SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])`, [
    flat.map((r) => r[0]),
    flat.map((r) => r[1]),
    flat.map((r) => r[2]),
  ]);
}
await bench.sql('ANALYZE');
// The healthy receiver: another key's plain webhook (no stack, no filters).
const healthyIds = [randomUUID()];
await db.prisma.webhook.create({
  data: {
    id: healthyIds[0],
    url: healthyReceiver.url('/healthy'),
    secret: newSecret(),
    ownerKeyHash: sha256Hex('healthy'),
    subscribedAt: new Date(Date.now() - 60_000),
  },
});
const setupMs = performance.now() - setupStart;

// ---- the batch: issue k affects versions < 1.5.0 of one package
const touched = Array.from({ length: issueCount }, (_, k) => Math.floor((k * nameCount) / issueCount));
const touchedSet = new Set(touched);
const expected = stacks.filter((s) => s.some((c) => touchedSet.has(c.n) && Number(c.version.split('.')[1]) < 5)).length;
const readRows = stacks.reduce((sum, s) => sum + s.filter((c) => touchedSet.has(c.n)).length, 0);
const touchedStacks = stacks.filter((s) => s.some((c) => touchedSet.has(c.n))).length;

const config = testConfig({ webhookAllowPrivateTargets: true });
const { pubsub, close: closePubsub } = createIssuePubSub();
const services = { config, db, log, pubsub };
const worker = createDeliveryWorker({ db, log }, { allowPrivateTargets: true, ca: testCertificate().cert });
const dispatcher = createWebhookDispatcher(services, { onDeliveries: () => worker.wake() });
await dispatcher.start();
worker.start();

// Commit to receipt at the healthy receiver of small batches (one issue naming no watched
// package) published every 200 ms while the stack batch is matched and delivered.
const publishedAt = new Map<string, number>();
const latencies: number[] = [];
healthyReceiver.on('/healthy', (req) => {
  for (const issue of (req.json as { issues: { id: string }[] }).issues) {
    const at = publishedAt.get(issue.id);
    if (at !== undefined) latencies.push(performance.now() - at);
  }
  return 204;
});
let publishing = true;
async function publishSmallBatches() {
  for (let k = 0; publishing; k++) {
    const { id, eventId } = await db.prisma.$transaction(
      async (tx) => {
        const [issue] = await tx.issue.createManyAndReturn({ data: [makeIssue({ title: `Unrelated news ${k}`, issueType: 'news' })], select: { id: true } });
        const event = await tx.issueEvent.create({ data: { issueIds: [issue!.id] }, select: { id: true } });
        return { id: issue!.id, eventId: event.id };
      },
      { maxWait: 60_000 },
    );
    publishedAt.set(id, performance.now());
    pubsub.publish('newIssues', { eventId, issueIds: [id] });
    await new Promise((r) => setTimeout(r, 200));
  }
}

const rows = touched.map((n, k) =>
  makeIssue({
    title: `Bench advisory ${k} for ${name(n)}`,
    packageNames: [name(n)],
    affectedPackages: [`${name(n)}@<1.5.0 (fixed: 1.5.0)`],
    affectedPackageRefs: [`PyPI:${name(n)}`],
    source: {
      affected: [{ package: { ecosystem: 'PyPI', name: name(n) }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.5.0' }] }] }],
    },
  }),
);
const cpuBefore = process.cpuUsage();
const { eventId, issueIds } = await db.prisma.$transaction(async (tx) => {
  const created = await tx.issue.createManyAndReturn({ data: rows, select: { id: true } });
  const ids = created.map((r) => r.id);
  const event = await tx.issueEvent.create({ data: { issueIds: ids }, select: { id: true } });
  return { eventId: event.id, issueIds: ids };
});
const committed = performance.now();
pubsub.publish('newIssues', { eventId, issueIds });
const smallBatches = publishSmallBatches();

// Stack rows only: the healthy webhooks' rows are not counted.
let enqueued = 0;
while (enqueued < expected) {
  await new Promise((r) => setTimeout(r, 20));
  enqueued = await db.prisma.webhookDelivery.count({ where: { eventId, webhookId: { notIn: healthyIds } } });
  if (performance.now() - committed > 600_000) throw new Error(`only ${enqueued} of ${expected} rows after 10 minutes`);
}
const outboxMs = performance.now() - committed;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
await stackReceiver.waitFor((r) => r.length >= expected, 600_000);
const deliveredMs = performance.now() - committed;
publishing = false;
await smallBatches;
await healthyReceiver.waitFor(() => latencies.length >= publishedAt.size, 60_000);
if (enqueued !== expected) throw new Error(`${enqueued} rows, expected ${expected}`);

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const s = (ms: number) => (ms / 1000).toFixed(2);
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- stack-watch:begin -->
## Watched stacks (\`npm run bench -- stack-watch --stacks ${stackCount} --components ${componentCount} --issues ${issueCount} --names ${nameCount} --db ${db.kind}\`)

Measured ${when} UTC, load average ${loadavg()[0]!.toFixed(0)} at the end, ${db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}. ${stackCount.toLocaleString('en')} webhooks each watching ${componentCount} PyPI purls
(${(stackCount * componentCount).toLocaleString('en')} StackEntry rows, set up in ${s(setupMs)} s); one batch of ${issueCount} new issues; dispatcher and delivery worker in this process, HTTPS
receivers on 127.0.0.1.

| figure | value |
|---|---|
| stacks the batch touches / StackEntry rows read | ${touchedStacks.toLocaleString('en')} / ${readRows.toLocaleString('en')} of ${(stackCount * componentCount).toLocaleString('en')} |
| stacks affected = outbox rows written | ${expected.toLocaleString('en')} |
| **commit to last delivery enqueued** | **${s(outboxMs)} s** |
| this process's CPU over that time | ${s(cpuMs)} s |
| commit to the last stack delivery received (deliveries/s) | ${s(deliveredMs)} s (${Math.round(expected / (deliveredMs / 1000))} deliveries/s) |
| healthy receiver (one-issue batch every 200 ms): commit to receipt p50 / **p99** / max, ${sorted.length} batches | ${s(pct(50))} / **${s(pct(99))}** / ${s(sorted.at(-1) ?? NaN)} s |
<!-- stack-watch:end -->`;

await writeReadmeSection('stack-watch', section);
console.log(section);
await dispatcher.stop();
await worker.stop();
await stackReceiver.close();
await healthyReceiver.close();
await closePubsub();
await bench.close();
process.exit(0);
