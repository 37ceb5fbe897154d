// The shared rate-limit store: two app instances on one Redis admit exactly the budget between them,
// and an unreachable Redis fails open to a per-process limit and recovers when it returns. Tests
// that need a Redis run when TEST_REDIS_URL is set (CI sets it); each uses its own key prefix.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimitStore, FailOpenRateLimitStore, RedisRateLimitStore } from '../../src/http/redis-rate-limit-store.js';
import type { RateLimitStore } from '../../src/http/rate-limit-store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { manualClock, recordingLog } from '../helpers/recording-log.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;
const query = JSON.stringify({ query: '{ stats { data { totalDigests } } }' });

let db: TestDatabase;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await db?.close();
});

const uniquePrefix = () => `secwire-test:${randomBytes(6).toString('hex')}:`;

/** An app instance on the shared test database whose rate limit uses `store`. */
async function instance(store: RateLimitStore, limit = 60): Promise<TestApp> {
  const t = await createTestApp({ rateLimitPerMinute: limit, trustProxy: true }, db, { rateLimitStore: store });
  closers.push(() => store.close());
  return t;
}

const ask = (t: TestApp, client = '198.51.100.20') =>
  t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: query });

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(redisUrl)('two instances on one Redis', () => {
  it('admit exactly 60 of 200 concurrent requests from one client spread across both, then a new minute', async () => {
    const clock = manualClock();
    const keyPrefix = uniquePrefix();
    const log = recordingLog();
    const [a, b] = await Promise.all([
      createRateLimitStore(redisUrl, log, { keyPrefix, clock }).then((store) => instance(store)),
      createRateLimitStore(redisUrl, log, { keyPrefix, clock }).then((store) => instance(store)),
    ]);

    const statuses: number[] = [];
    // Ten waves of twenty requests in flight at once, alternating instances, so both race for the
    // last slots in Redis.
    for (let wave = 0; wave < 10; wave++) {
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(i % 2 ? a! : b!)));
      for (const res of responses) {
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
    expect(log.entries.filter((e) => e.level === 'warn')).toEqual([]);

    // Another client is untouched on either instance.
    expect((await ask(a!, '198.51.100.21')).status).toBe(200);

    const refused = await ask(b!);
    expect(await refused.json()).toEqual({
      errors: [{ message: 'Rate limit exceeded: maximum of 60 requests per minute', extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);

    clock.advance(60_000);
    expect((await ask(b!)).status).toBe(200);
    expect((await ask(a!)).status).toBe(200);
  });

  it('charge a request its whole cost in one step: of 20 concurrent 10-unit requests on two stores, exactly 6 fit in 60', async () => {
    const keyPrefix = uniquePrefix();
    const stores = [new RedisRateLimitStore(redisUrl!, { keyPrefix }), new RedisRateLimitStore(redisUrl!, { keyPrefix })];
    for (const store of stores) {
      closers.push(() => store.close());
      await store.connect();
    }
    const hits = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.hit('ip:192.0.2.9', 60, 60_000, 10)));
    expect(hits.filter((h) => h.admitted)).toHaveLength(6);
    // Each admitted request saw the units before it, in tens.
    expect(
      hits
        .filter((h) => h.admitted)
        .map((h) => h.earlier.length)
        .sort((x, y) => x - y),
    ).toEqual([0, 10, 20, 30, 40, 50]);
    const redis = new Redis(redisUrl!);
    closers.push(async () => redis.disconnect());
    expect(await redis.zcard(`${keyPrefix}ip:192.0.2.9`)).toBe(60);
    // Nothing is left for even one unit.
    expect((await stores[0]!.hit('ip:192.0.2.9', 60, 60_000)).admitted).toBe(false);
  });

  it('charge a GraphQL scan 5 across both: of 20 concurrent scans, as many as fit whole, and never a partial charge', async () => {
    const keyPrefix = uniquePrefix();
    const log = recordingLog();
    const [a, b] = await Promise.all([
      createRateLimitStore(redisUrl, log, { keyPrefix }).then((store) => instance(store)),
      createRateLimitStore(redisUrl, log, { keyPrefix }).then((store) => instance(store)),
    ]);
    const body = JSON.stringify({ query: '{ scan(packages: ["torch"]) { meta { total } } }' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a! : b!).fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.77' }, body }),
      ),
    );
    const answers = await Promise.all(responses.map(async (res) => ({ status: res.status, body: await res.json() })));
    const admitted = answers.filter((x) => x.status === 200);
    for (const x of admitted) expect(x.body.data.scan.meta.total).toBe(0);
    // Refused once read: its door unit stays spent, its other four are not; refused at the door: nothing spent.
    const refusedOnceRead = answers.filter((x) => x.status === 429 && /counts as 5$/.test(x.body.errors[0].message));
    for (const x of answers.filter((x) => x.status === 429)) expect(x.body.data).toBeUndefined();
    const redis = new Redis(redisUrl!);
    closers.push(async () => redis.disconnect());
    const units = await redis.zcard(`${keyPrefix}ip:198.51.100.77`);
    expect(units).toBe(5 * admitted.length + refusedOnceRead.length);
    // Scans were refused, so fewer than the four units of another were left.
    expect(units).toBeGreaterThan(56);
    expect(units).toBeLessThanOrEqual(60);
  });

  it('keep one sorted set per client that expires with the window', async () => {
    const keyPrefix = uniquePrefix();
    const store = new RedisRateLimitStore(redisUrl!, { keyPrefix });
    closers.push(() => store.close());
    await store.connect();
    await store.hit('ip:192.0.2.1', 5, 60_000);
    await store.hit('ip:192.0.2.1', 5, 60_000);
    const redis = new Redis(redisUrl!);
    closers.push(async () => redis.disconnect());
    expect(await redis.zcard(`${keyPrefix}ip:192.0.2.1`)).toBe(2);
    const ttl = await redis.pttl(`${keyPrefix}ip:192.0.2.1`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('an unreachable Redis', () => {
  it('fails open to a per-process limit from the start, and says so once', async () => {
    const log = recordingLog();
    const port = await freePort(); // nothing listens here
    const store = await createRateLimitStore(`redis://127.0.0.1:${port}`, log);
    const t = await instance(store, 3);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await ask(t)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const warnings = log.entries.filter((e) => e.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/unreachable.*per process/);
    expect((store as FailOpenRateLimitStore).isDegraded).toBe(true);
  });

  describe.runIf(redisUrl)('a Redis that goes away and comes back', () => {
    let server: ChildProcess | undefined;
    let dir: string;
    let port: number;

    async function startRedis() {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: 'ignore',
      });
      const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 0 });
      probe.on('error', () => {});
      await until(async () => (await probe.ping().catch(() => '')) === 'PONG', 'redis-server to start');
      probe.disconnect();
    }

    async function stopRedis() {
      server!.kill('SIGKILL');
      await once(server!, 'exit');
      server = undefined;
    }

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'secwire-redis-'));
      port = await freePort();
    });
    afterAll(async () => {
      if (server) await stopRedis();
      await rm(dir, { recursive: true, force: true });
    });

    it('shares while up, limits per process while down, shares again once back', async () => {
      await startRedis();
      const log = recordingLog();
      const clock = manualClock();
      const keyPrefix = uniquePrefix();
      const url = `redis://127.0.0.1:${port}`;
      const stores = [await createRateLimitStore(url, log, { keyPrefix, clock }), await createRateLimitStore(url, log, { keyPrefix, clock })];
      const [a, b] = [await instance(stores[0]!, 4), await instance(stores[1]!, 4)];
      const primaries = stores.map((s) => (s as FailOpenRateLimitStore).primary as RedisRateLimitStore);

      // Shared: four admitted across both instances.
      const shared = [];
      for (let i = 0; i < 6; i++) shared.push((await ask(i % 2 ? a : b)).status);
      expect(shared).toEqual([200, 200, 200, 200, 429, 429]);

      await stopRedis();
      clock.advance(60_000);
      // Down: each instance limits on its own, so the client gets four on each.
      const down = { a: [] as number[], b: [] as number[] };
      for (let i = 0; i < 5; i++) down.a.push((await ask(a)).status);
      for (let i = 0; i < 5; i++) down.b.push((await ask(b)).status);
      expect(down.a).toEqual([200, 200, 200, 200, 429]);
      expect(down.b).toEqual([200, 200, 200, 200, 429]);
      const warnings = log.entries.filter((e) => e.level === 'warn');
      expect(warnings).toHaveLength(2); // once per instance, not once per request
      expect(warnings.every((w) => /unreachable/.test(w.msg))).toBe(true);

      await startRedis();
      await until(() => primaries.every((p) => p.redis.status === 'ready'), 'both stores to reconnect');
      clock.advance(60_000);
      const back = [];
      for (let i = 0; i < 6; i++) back.push((await ask(i % 2 ? a : b)).status);
      expect(back).toEqual([200, 200, 200, 200, 429, 429]);
      expect(log.entries.filter((e) => e.level === 'info' && /reachable again/.test(e.msg))).toHaveLength(2);
      expect(stores.every((s) => !(s as FailOpenRateLimitStore).isDegraded)).toBe(true);
    });
  });
});
