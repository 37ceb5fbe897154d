// What the rate limit costs per request, on PGlite and PostgreSQL side by side: the same requests
// through the real app in-process (no network) with the limit off, on the in-memory store and on
// the Redis store. Two requests: `{ __typename }` over GraphQL (no database: the limiter's cost
// stands out) and GET /api/v1/stats (four counts). 20 clients (X-Forwarded-For, TRUST_PROXY) take
// turns; the stores start empty every round, so a client's window holds up to 2 x 200 / 20 = 20
// entries (under the limit of 60: nothing is refused). Configurations are interleaved round by
// round so they share the machine's noise.
//
//   npx tsx bench/rate-limit.ts [requestsPerRound=200] [rounds=5]
// PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres), a scratch
// database created and dropped; Redis: BENCH_REDIS_URL (default redis://127.0.0.1:6379), keys under
// a unique prefix. Prints a Markdown table for bench/components.md ("Rate limit overhead").
import { randomBytes } from 'node:crypto';
import { createApp, type App } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../src/http/rate-limit-store.js';
import { createRateLimitStore } from '../src/http/redis-rate-limit-store.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { makeIssue } from '../test/helpers/issues.js';
import { onBothDatabases } from './scratch-databases.js';

const perRound = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 5);
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLogger('silent');
const clients = 20;

const requests = {
  'GraphQL { __typename }': () =>
    new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }),
  'GET /api/v1/stats': () => new Request('http://localhost/api/v1/stats'),
};
type RequestName = keyof typeof requests;
const configurations = ['off', 'memory', 'redis'] as const;
type Configuration = (typeof configurations)[number];

const median = (s: number[]) => [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)]!;
const p95 = (s: number[]) => [...s].sort((a, b) => a - b)[Math.floor(s.length * 0.95)]!;

async function measure(db: Database): Promise<Map<string, number[]>> {
  await db.prisma.issue.createMany({ data: Array.from({ length: 200 }, (_, i) => makeIssue({ title: `bench ${i}` })) });
  const { pubsub, close } = createIssuePubSub();
  const stores: Record<Configuration, RateLimitStore | undefined> = {
    off: undefined,
    memory: new MemoryRateLimitStore(),
    redis: await createRateLimitStore(redisUrl, log, { keyPrefix: `secwire-bench:${randomBytes(4).toString('hex')}:` }),
  };
  const apps = Object.fromEntries(
    configurations.map((c) => [
      c,
      createApp({ config: testConfig({ rateLimitPerMinute: c === 'off' ? 0 : 60, trustProxy: true }), db, log, pubsub, rateLimitStore: stores[c] }),
    ]),
  ) as Record<Configuration, App>;

  const samples = new Map<string, number[]>();
  let client = 0;
  async function run(c: Configuration, name: RequestName, n: number, record: boolean) {
    for (let i = 0; i < n; i++) {
      const request = requests[name]();
      request.headers.set('x-forwarded-for', `198.51.100.${(client = (client + 1) % clients)}`);
      const t0 = performance.now();
      const res = await apps[c].fetch(request);
      await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${c} ${name}: ${res.status}`);
      if (record) samples.set(`${c}|${name}`, [...(samples.get(`${c}|${name}`) ?? []), ms]);
    }
  }
  for (const name of Object.keys(requests) as RequestName[]) {
    for (const c of configurations) await run(c, name, 30, false); // warm-up
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(requests) as RequestName[]) {
      for (const c of configurations) await run(c, name, perRound, true);
    }
    // Empty windows for the next round.
    await stores.memory!.close();
    await stores.redis!.close();
    stores.redis = await createRateLimitStore(redisUrl, log, { keyPrefix: `secwire-bench:${randomBytes(4).toString('hex')}:` });
    apps.redis = createApp({ config: testConfig({ rateLimitPerMinute: 60, trustProxy: true }), db, log, pubsub, rateLimitStore: stores.redis });
  }
  await stores.redis?.close();
  await close();
  return samples;
}

async function main() {
  const { onPGlite, onPostgres } = await onBothDatabases(measure);

  const f = (ms: number) => ms.toFixed(2);
  console.log(`${rounds} rounds x ${perRound} requests per configuration, median (p95) ms per request, overhead = median minus median with the limit off\n`);
  console.log('| request | limit | PGlite ms | PGlite overhead | PostgreSQL ms | PostgreSQL overhead | PostgreSQL / PGlite |');
  console.log('|---|---|---|---|---|---|---|');
  for (const request of Object.keys(requests)) {
    const base = { pglite: median(onPGlite.get(`off|${request}`)!), postgres: median(onPostgres.get(`off|${request}`)!) };
    for (const c of configurations) {
      const a = onPGlite.get(`${c}|${request}`)!;
      const b = onPostgres.get(`${c}|${request}`)!;
      const overhead = (m: number, o: number) => (c === 'off' ? '' : `${((m - o) * 1000).toFixed(0)} µs`);
      console.log(
        `| ${request} | ${c} | ${f(median(a))} (${f(p95(a))}) | ${overhead(median(a), base.pglite)} | ${f(median(b))} (${f(p95(b))}) | ${overhead(median(b), base.postgres)} | ${(median(b) / median(a)).toFixed(2)} |`,
      );
    }
  }
}

await main();
