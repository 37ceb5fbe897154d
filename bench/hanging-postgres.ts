// Probes while PostgreSQL hangs (issue 27: /health took 5 s and /ready 6 s): the app reaches a
// scratch PostgreSQL through a TCP proxy on 127.0.0.1 that, once stalled, keeps every connection
// open and forwards nothing (a lost network, a stuck server). /health and /ready are asked in turn
// while it hangs, each answer timed, and so are ordinary reads (issue 40: they waited for the
// pool's time-out, up to 10 s, before their 503): one at a time, then `--concurrency` clients at
// once, each read a new search so that no cached answer serves it. Then the proxy forwards again and
// /ready must recover.
//
//   npx tsx bench/hanging-postgres.ts [--probes 20] [--concurrency 50]
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { createTcpProxy } from '../test/helpers/tcp-proxy.js';
import { connectPostgres, scratchPostgres } from './scratch-databases.js';

const { values } = parseArgs({ options: { probes: { type: 'string', default: '20' }, concurrency: { type: 'string', default: '50' } } });
const probes = Number(values.probes);
const concurrency = Number(values.concurrency);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

const scratch = await scratchPostgres();
const target = new URL(scratch.url!);
const proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
const viaProxy = new URL(scratch.url!);
viaProxy.port = String(proxy.port);
const bench = await connectPostgres(viaProxy.toString());
const config = testConfig({ rateLimitPerMinute: 0 });
const { pubsub } = createIssuePubSub(config);
const app = createApp({ config, db: bench.db, log: createLogger('silent'), pubsub });
const server = createHttpServer(app);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function probe(path: string): Promise<{ ms: number; status: number; retryAfter: boolean }> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status, retryAfter: res.headers.has('retry-after') };
}

type Summary = { statuses: Record<number, number>; p50Ms: number; p99Ms: number; maxMs: number; retryAfterOn5xx?: string };
const round1 = (ms: number) => Math.round(ms * 10) / 10;

function summary(answers: { ms: number; status: number; retryAfter: boolean }[]): Summary {
  const times = answers.map((a) => a.ms).sort((a, b) => a - b);
  const statuses: Record<number, number> = {};
  for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
  const failed = answers.filter((a) => a.status >= 500);
  return {
    statuses,
    p50Ms: round1(percentile(times, 50)),
    p99Ms: round1(percentile(times, 99)),
    maxMs: round1(times.at(-1)!),
    ...(failed.length ? { retryAfterOn5xx: `${failed.filter((a) => a.retryAfter).length}/${failed.length}` } : {}),
  };
}

let searches = 0;
/** Ordinary reads that need the database: a new search each time (no cached answer), and the stats. */
const ordinary = (i: number) =>
  i % 2
    ? `/api/v1/issues?limit=5&search=hang-${searches++}`
    : `/graphql?query=${encodeURIComponent(`{ issues(search: "g${searches++}") { meta { total } } }`)}`;

async function round(): Promise<Record<string, Summary>> {
  const result: Record<string, Summary> = {};
  for (const path of ['/health', '/ready']) {
    const answers = [];
    for (let i = 0; i < probes; i++) answers.push(await probe(path));
    result[path] = summary(answers);
  }
  const oneByOne = [];
  for (let i = 0; i < probes; i++) oneByOne.push(await probe(ordinary(i)));
  result['reads, one at a time'] = summary(oneByOne);
  result[`reads, ${concurrency} at once`] = summary(await Promise.all(Array.from({ length: concurrency }, (_, i) => probe(ordinary(i)))));
  return result;
}

// Warm: the pool holds open connections, which is what a hang catches.
for (let i = 0; i < 5; i++) await probe('/api/v1/issues?limit=5');
const healthy = await round();
proxy.stall();
const hanging = await round();
proxy.restore();
const restoredAt = performance.now();
let ready = await probe('/ready');
while (ready.status !== 200 && performance.now() - restoredAt < 30_000) ready = await probe('/ready');
console.log(
  JSON.stringify({ probes, healthy, hanging, readyAgainAfterRestoreMs: Math.round(performance.now() - restoredAt), readyStatus: ready.status }, null, 2),
);
server.closeAllConnections();
server.close();
await Promise.race([bench.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
await proxy.close();
await scratch.close();
process.exit(0);
