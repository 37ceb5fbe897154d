// Three server processes on one PostgreSQL and one Redis behind HAProxy from Debian's package,
// configured exactly as docs/operations.md shows (test/helpers/load-balancer.ts reads it from
// there), the way a team that outgrows one machine runs the service (issues 40 and 43): the
// balancer's `option httpchk GET /ready` finds every instance up, the rate limit holds across them
// with the client's address from the balancer's header, subscriptions and webhooks get every write
// once whichever instance took it, exports are the same from each, an instance killed in the
// middle of a webhook fan-out loses nothing, and a rolling restart under load fails no request.
// Runs on the PostgreSQL + Redis pass (TEST_DATABASE_URL and TEST_REDIS_URL); in CI HAProxy is
// always there (.ci/run installs it).
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/keys/bearer.js';
import { newSecret } from '../../src/webhooks/signing.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { createReceiver, testCertificate, type Receiver } from '../helpers/https-receiver.js';
import { balancersInstalled, freePort, startBalancer, startNginx, type Balancer } from '../helpers/load-balancer.js';
import { adminKey, clonedAdvisories } from '../helpers/samples.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { openSubscription } from '../helpers/sse.js';
import { eventually, webhookKey } from '../helpers/webhooks.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;
const inCI = Boolean(process.env.CI);
const skipReason = 'HAProxy or nginx is not installed (apt-get install haproxy nginx); CI installs both and never skips';
if (testDatabaseUrl && redisUrl && !balancersInstalled && !inCI) console.warn(`scale-out test skipped: ${skipReason}`);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

// One keep-alive agent per client address. Idle sockets are dropped after 2 s, before HAProxy's
// own idle limit closes them: otherwise a request sent on a socket the balancer is closing at that
// moment fails in the client, which says nothing about the service.
const agents = new Map<string, Agent>();
const agentFor = (address: string) => {
  let agent = agents.get(address);
  if (!agent) agents.set(address, (agent = new Agent({ keepAlive: true, timeout: 2000, localAddress: address })));
  return agent;
};

/** One request from `from` (any 127.x.y.z address is this machine's): each address is a client of its own. */
function call(
  base: string,
  path: string,
  { from = '127.0.0.1', method = 'GET', headers = {}, body }: { from?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      {
        method,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        // A write goes on a connection of its own: the balancer does not retry one that failed on a
        // reused socket it was closing, and that race says nothing about the service.
        ...(method === 'GET' || method === 'HEAD' ? { agent: agentFor(from) } : { agent: false, localAddress: from }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A client address of its own for the n-th client (127.1.0.0/16). */
const client = (n: number) => `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The mixed load through the balancer until stop(): reads of every kind and GraphQL posts, from
 * rotating client addresses (none near its rate limit). Every answer's status is counted, and every
 * request that got none, by its error.
 */
function startLoad(base: string, { concurrency = 6, firstClient = 1000 } = {}) {
  const statuses: Record<string, number> = {};
  const failures: { method: string; path: string; status?: number; error?: string; at: number }[] = [];
  let running = true;
  let n = 0;
  const requests: { method: string; path: string; body?: string }[] = [
    { method: 'GET', path: '/api/v1/issues?limit=5' },
    { method: 'GET', path: '/api/v1/stats' },
    { method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ stats { totalIssues } }' }) },
    { method: 'GET', path: '/api/v1/issues?limit=20&severity=high' },
    { method: 'HEAD', path: '/ready' },
    { method: 'GET', path: '/api/v1/issues.atom' },
  ];
  const workers = Array.from({ length: concurrency }, async () => {
    while (running) {
      const i = n++;
      const { method, path, body } = requests[i % requests.length]!;
      const from = client(firstClient + (i % 2000));
      try {
        const res = await call(base, path, { from, method, body });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 500) failures.push({ method, path, status: res.status, at: Date.now() });
      } catch (err) {
        failures.push({ method, path, error: (err as NodeJS.ErrnoException).code ?? String(err), at: Date.now() });
      }
    }
  });
  return {
    statuses,
    failures,
    /** Answers so far. */
    answered: () => Object.values(statuses).reduce((a, b) => a + b, 0),
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

describe.skipIf(!testDatabaseUrl || !redisUrl || (!balancersInstalled && !inCI))(
  `three instances behind HAProxy and nginx${balancersInstalled ? '' : ` (${skipReason})`}`,
  () => {
    const prefix = `secwire-test:${randomBytes(6).toString('hex')}:`;
    const webhookCount = 24;
    let db: TestDatabase;
    let dir: string;
    let receiver: Receiver;
    let ports: number[];
    const instances: ServerProcess[] = [];
    let balancer: Balancer;
    let env: Record<string, string>;
    let tags = 0x5c00;
    /** Ingests `n` new advisories through `base` (one instance, or the balancer); the new issues' CVE ids. */
    async function ingest(base: string, n = 1): Promise<string[]> {
      const records = clonedAdvisories(n, (tags++).toString(16));
      const res = await call(base, '/api/v1/admin/ingest', { method: 'POST', headers: { authorization: `Bearer ${adminKey}` }, body: JSON.stringify(records) });
      expect(res.status, res.body.toString()).toBe(200);
      return records.map((r) => r.aliases[0] as string);
    }
    const start = (i: number) => startServerProcess({ ...env, PORT: String(ports[i]) });

    beforeAll(async () => {
      db = await createTestDatabase();
      dir = await mkdtemp(join(tmpdir(), 'secwire-scale-out-'));
      writeFileSync(join(dir, 'ca.pem'), testCertificate().cert);
      receiver = await createReceiver();
      // Registered before the instances start, so every dispatcher knows them from the first batch.
      await db.prisma.webhook.createMany({
        data: Array.from({ length: webhookCount }, (_, i) => ({ url: receiver.url(`/hook/${i}`), secret: newSecret(), ownerKeyHash: sha256Hex(webhookKey) })),
      });
      env = {
        DATABASE_URL: db.url!,
        REDIS_URL: redisUrl!,
        REDIS_KEY_PREFIX: prefix,
        // HAProxy and nginx connect from 127.0.0.1; the test's clients from 127.1.x.y.
        TRUST_PROXY: '127.0.0.1',
        ADMIN_API_KEY: adminKey,
        WEBHOOK_API_KEY: webhookKey,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
        MIGRATE_ON_START: 'false',
      };
      ports = [await freePort(), await freePort(), await freePort()];
      instances.push(...(await Promise.all([0, 1, 2].map(start))));
      balancer = await startBalancer(ports);
    }, 60_000);

    afterAll(async () => {
      await balancer?.stop();
      await Promise.all(instances.map((s) => s.stop().catch(() => undefined)));
      for (const agent of agents.values()) agent.destroy();
      await receiver?.close();
      await db?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    // The longer parts wait for conditions; their time limits only keep a busy CI machine from failing them.
    it('marks every instance up with the documented `option httpchk GET /ready`', async () => {
      const servers = await balancer.waitForServers((s) => s.every((x) => x.status === 'UP' && x.check === 'L7OK'));
      expect(servers.map((s) => s.name)).toEqual(['app1', 'app2', 'app3']);
      expect((await call(balancer.base, '/ready')).status).toBe(200);
    });

    it('keeps the rate limit exact across the instances, counting the address the balancer saw', async () => {
      const [a, b] = [client(1), client(2)];
      const served = async (from: string, n: number, headers?: Record<string, string>) => {
        const answers = await Promise.all(Array.from({ length: n }, () => call(balancer.base, '/api/v1/stats', { from, headers })));
        return answers.map((r) => r.status).sort();
      };
      const before = await balancer.servers();
      // 70 at once from one client, spread over the three instances: 60 served, 10 refused.
      const statuses = await served(a, 70);
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      // A client-written X-Forwarded-For does not make it someone else: the balancer's entry counts.
      expect(await served(a, 5, { 'x-forwarded-for': '203.0.113.7' })).toEqual([429, 429, 429, 429, 429]);
      // A client that reaches an instance past the balancer is not trusted with the header either.
      const past = await call(instances[0]!.base, '/api/v1/stats', { from: client(3), headers: { 'x-forwarded-for': a } });
      expect(past.status).toBe(200);
      // Another address has a budget of its own.
      expect(await served(b, 3)).toEqual([200, 200, 200]);
      // Every instance served some of it.
      const after = await balancer.servers();
      expect(after.map((s, i) => s.total > before[i]!.total)).toEqual([true, true, true]);
    });

    it('delivers every write once to every subscription and webhook, whichever instance took it', { timeout: 120_000 }, async () => {
      // A subscription on each instance, and one through the balancer; each collects its messages.
      const bases = [...instances.map((s) => s.base), balancer.base];
      const subscriptions = await Promise.all(
        bases.map((base) => openSubscription({ fetch: (path, init) => fetch(base + path, init) }, 'subscription { newIssues { issues { cveId } } }')),
      );
      const received: string[][][] = subscriptions.map(() => []);
      const pumps = subscriptions.map(async (subscription, i) => {
        for (;;) {
          const message = await subscription.next('newIssues').catch(() => undefined);
          if (!message) return;
          received[i]!.push(message.data.newIssues.issues.map((issue: { cveId: string }) => issue.cveId));
        }
      });
      const has = (cves: string[]) => received.every((messages) => messages.some((m) => m.includes(cves[0]!)));
      try {
        // A stream listens from its first read on: new batches until every stream has had one.
        const warmUps: string[][] = [];
        await eventually(
          async () => {
            if (!warmUps.some(has)) warmUps.push(await ingest(balancer.base));
            return warmUps.some(has);
          },
          20_000,
          200,
        );
        // One batch written through each instance, then one through the balancer that ends the wait.
        const batches = [...(await Promise.all(instances.map((s) => ingest(s.base)))), await ingest(balancer.base)];
        await eventually(async () => has(batches.at(-1)!), 20_000);
        for (const messages of received) {
          for (const batch of batches) expect(messages.filter((m) => m.includes(batch[0]!))).toEqual([batch]);
        }

        // Webhooks: every one got every batch once (warm-ups included), and nothing is left to send.
        const all = [...warmUps, ...batches];
        const deliveriesOf = (path: string, cve: string) =>
          receiver.requests.filter((r) => r.path === path && r.json?.issues?.some((issue: { cveId: string }) => issue.cveId === cve));
        await receiver.waitFor(() =>
          Array.from({ length: webhookCount }, (_, i) => all.every((b) => deliveriesOf(`/hook/${i}`, b[0]!).length > 0)).every(Boolean),
        );
        await eventually(async () => (await db.prisma.webhookDelivery.count({ where: { status: { in: ['pending', 'delivering'] } } })) === 0);
        for (let i = 0; i < webhookCount; i++) {
          for (const batch of all) expect(deliveriesOf(`/hook/${i}`, batch[0]!)).toHaveLength(1);
        }
      } finally {
        await Promise.all(subscriptions.map((s) => s.close()));
        await Promise.all(pumps);
      }
    });

    it('serves the same CSV and OSV exports from every instance', async () => {
      let n = 100;
      for (const path of ['/api/issues/export', '/api/v1/osv/all.zip']) {
        // Directly from each instance and once through the balancer; each client pays for its own.
        const answers = await Promise.all([...instances.map((s) => s.base), balancer.base].map((base) => call(base, path, { from: client(n++) })));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
        expect(answers[0]!.body.length).toBeGreaterThan(1000);
        expect(new Set(answers.map((a) => sha256(a.body))).size).toBe(1);
        expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
      }
    });

    let fanOut: { batches: string[][]; killed: number } | undefined;

    it('serves clients from the others when an instance is killed in the middle of a webhook fan-out', { timeout: 60_000 }, async () => {
      for (let i = 0; i < webhookCount; i++) receiver.on(`/hook/${i}`, () => ({ status: 204, delayMs: 50 }));
      const load = startLoad(balancer.base);
      const before = receiver.requests.length;
      const batches = [await ingest(balancer.base), await ingest(balancer.base), await ingest(balancer.base)];
      // A third of the fan-out sent: kill app2 with whatever it has claimed and is sending.
      await receiver.waitFor((r) => r.length >= before + webhookCount);
      const killed = receiver.requests.length;
      instances[1]!.child.kill('SIGKILL');
      fanOut = { batches, killed: Date.now() };
      await balancer.waitForServers((s) => s[1]!.status === 'DOWN');
      const downAt = Date.now();
      // The others go on serving everyone.
      const answered = load.answered();
      await eventually(async () => load.answered() >= answered + 30);
      await load.stop();
      // "UP 1/2" is an instance with one slow check behind it on a busy machine: still in service.
      expect((await balancer.servers()).map((s) => s.status.split(' ')[0])).toEqual(['UP', 'DOWN', 'UP']);
      // Only requests that were in flight at the killed instance may fail: writes (reads are tried
      // again elsewhere by the balancer), at most one per load client, before it was marked down.
      expect(load.failures.filter((f) => f.method === 'GET' || f.method === 'HEAD' || f.at > downAt)).toEqual([]);
      expect(load.failures.length).toBeLessThanOrEqual(6);
      expect(load.statuses['200']).toBeGreaterThan(30);
      expect(killed).toBeLessThan(before + batches.length * webhookCount);
      // Back for the rolling restart.
      instances[1] = await start(1);
      await balancer.waitForServers((s) => s.every((x) => x.status === 'UP'));
    });

    it('restarts every instance in turn, under load, without failing a request', { timeout: 90_000 }, async () => {
      const load = startLoad(balancer.base, { firstClient: 4000 });
      for (let i = 0; i < 3; i++) {
        // As docs/operations.md says: out of the balancer, its requests finished, SIGTERM, back in.
        const name = `secwire/app${i + 1}`;
        await balancer.command(`set server ${name} state drain`);
        await balancer.waitForServers((s) => s[i]!.sessions === 0);
        expect(await instances[i]!.stop()).toBe(0);
        instances[i] = await start(i);
        await balancer.command(`set server ${name} state ready`);
        await balancer.waitForServers((s) => s[i]!.status === 'UP');
      }
      const answered = load.answered();
      await eventually(async () => load.answered() >= answered + 30);
      await load.stop();
      expect(load.failures).toEqual([]);
      expect(load.statuses['200']).toBeGreaterThan(100);
    });

    it('serves the same three instances behind the documented nginx configuration', async () => {
      const nginx = await startNginx(ports);
      try {
        expect((await call(nginx.base, '/ready')).status).toBe(200);
        // The address nginx saw is the client, whatever the client wrote in X-Forwarded-For.
        const from = client(3000);
        const answers = await Promise.all(
          Array.from({ length: 65 }, () => call(nginx.base, '/api/v1/stats', { from, headers: { 'x-forwarded-for': '203.0.113.9' } })),
        );
        expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
        expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
        // Unbuffered: a subscription's events arrive as they are written.
        const subscription = await openSubscription(
          { fetch: (path, init) => fetch(nginx.base + path, init) },
          'subscription { newIssues { issues { cveId } } }',
        );
        try {
          const next = subscription.next('newIssues');
          let message: any;
          void next.then((m) => (message = m));
          await eventually(async () => (message || (await ingest(nginx.base)), message), 20_000, 200);
        } finally {
          await subscription.close();
        }
      } finally {
        await nginx.stop();
      }
    });

    it('delivered every webhook of the fan-out the killed instance was part of, counting duplicates', { timeout: 60_000 }, async () => {
      expect(fanOut).toBeDefined();
      const { batches } = fanOut!;
      const deliveriesOf = (path: string, cve: string) =>
        receiver.requests.filter((r) => r.path === path && r.json?.issues?.some((issue: { cveId: string }) => issue.cveId === cve));
      // What the killed worker had claimed goes out once its lease runs out.
      await receiver.waitFor(
        () => Array.from({ length: webhookCount }, (_, i) => batches.every((b) => deliveriesOf(`/hook/${i}`, b[0]!).length > 0)).every(Boolean),
        50_000,
      );
      await eventually(async () => (await db.prisma.webhookDelivery.count({ where: { status: { in: ['pending', 'delivering'] } } })) === 0, 50_000);
      const ids = batches
        .flatMap((b) => Array.from({ length: webhookCount }, (_, i) => deliveriesOf(`/hook/${i}`, b[0]!)))
        .flat()
        .map((r) => r.headers['webhook-id']);
      const duplicates = ids.length - new Set(ids).size;
      console.info(`scale-out: ${batches.length * webhookCount} deliveries of the fan-out, 0 lost, ${duplicates} sent twice (same webhook-id)`);
      // A duplicate is a delivery the killed instance sent and could not record: at most its worker's 16 slots.
      expect(new Set(ids).size).toBe(batches.length * webhookCount);
      expect(duplicates).toBeLessThanOrEqual(16);
    });
  },
);
