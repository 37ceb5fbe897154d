// The real server process on PostgreSQL or PGlite and a Redis behind a proxy the test cuts or
// stalls: an outage never ends the process (ioredis used to reject a SUBSCRIBE nobody handled), it
// is logged once rather than once per reconnect attempt, pub/sub works again once Redis is back,
// and an admin ingest during the outage answers while Redis is still down (a hanging Redis used to
// hold it for good) and its event is published once Redis returns.
// Runs when TEST_REDIS_URL is set.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { sha256Hex } from '../../src/keys/bearer.js';
import { newSecret } from '../../src/webhooks/signing.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { adminHeaders, adminKey, clonedAdvisories, loadAdvisories } from '../helpers/samples.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { openSubscription } from '../helpers/sse.js';
import { createTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { bearer, eventually, webhookKey } from '../helpers/webhooks.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;

describe.skipIf(!redisUrl)('a Redis outage', () => {
  const prefix = `secwire-test:${randomBytes(6).toString('hex')}:`;
  const channel = `${prefix}newIssues`;
  let proxy: TcpProxy;
  let redis: Redis;
  let server: ServerProcess;
  let pgDatabase: TestDatabase | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    const upstream = new URL(redisUrl!);
    proxy = await createTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 6379) }, { cut: true });
    redis = new Redis(redisUrl!);
    // A database the server process can open, holding an active webhook: its dispatcher subscribes at start-up.
    let env: Record<string, string>;
    if (testDatabaseUrl) {
      pgDatabase = await createTestDatabase();
      env = { DATABASE_URL: pgDatabase.url! };
    } else {
      dataDir = await mkdtemp(join(tmpdir(), 'secwire-redis-outage-'));
      env = { DATA_DIR: dataDir };
    }
    const db = pgDatabase ?? (await openDatabase({ kind: 'pglite', dataDir: dataDir! }));
    if (dataDir) await migrate(db.adapterFactory);
    // Filtered to what the test never ingests: nothing is sent to it.
    const filters = { issueType: 'regulatory' };
    await db.prisma.webhook.create({ data: { url: 'https://127.0.0.1:9/hook', filters, secret: newSecret(), ownerKeyHash: sha256Hex(webhookKey) } });
    if (dataDir) await db.close(); // PGlite: one process at a time
    server = await startServerProcess({
      ...env,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'debug',
      ADMIN_API_KEY: adminKey,
      WEBHOOK_API_KEY: webhookKey,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
    });
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    redis?.disconnect();
    await proxy?.close();
    await pgDatabase?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const subscribeFailed = (l: { msg?: string }) => l.msg === 'redis pub/sub: subscribe failed; renewed once redis is back';
  const reachable = (l: { msg?: string }) => l.msg === 'redis pub/sub: reachable again';
  const subscribers = async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);

  it('starts with an active webhook while Redis is unreachable, keeps serving, and recovers', { timeout: 120_000 }, async () => {
    // The dispatcher's SUBSCRIBE for the webhook has failed (ioredis gave up on it): the process is still here.
    const failedAt = await server.waitForLog(subscribeFailed);
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
    expect((await fetch(`${server.base}/api/v1/issues`)).status).toBe(200);
    // One warning per purpose (pub/sub, rate limit), however many reconnect attempts failed.
    const attempts = server.lines().filter((l) => l.msg === 'redis pub/sub: connection error').length;
    expect(attempts).toBeGreaterThan(1);
    expect(server.lines().filter((l) => l.level === 'warn' && /redis|rate limit/.test(String(l.msg)))).toHaveLength(2);

    proxy.restore();
    await server.waitForLog(reachable, failedAt);
    expect(server.lines().filter(reachable)).toHaveLength(1);
    // The subscription is renewed under the deployment's prefix, and a batch published now streams live.
    await eventually(async () => (await subscribers()) === 1);
    const subscription = await openSubscription({ fetch: (path, init) => fetch(server.base + path, init) }, 'subscription { newIssues { issues { cveId } } }');
    try {
      const received = subscription.next('newIssues');
      // The stream listens only once Yoga pulls it: ingest one new advisory at a time until one arrives.
      const advisories = loadAdvisories();
      let seen: any;
      void received.then((message) => (seen = message));
      for (let i = 0; !seen && i < advisories.length; i++) {
        const res = await fetch(`${server.base}/api/v1/admin/ingest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...adminHeaders },
          body: JSON.stringify(advisories[i]),
        });
        expect(res.status).toBe(200);
        await Promise.race([received, new Promise((r) => setTimeout(r, 200))]);
      }
      expect((await received).data.newIssues.issues.length).toBeGreaterThan(0);
    } finally {
      await subscription.close();
    }
  });

  it('keeps serving when a webhook is registered during an outage, and subscribes once Redis is back', { timeout: 120_000 }, async () => {
    // No listener left: the webhook is deleted and its dispatch subscription ends.
    const list = await (await fetch(`${server.base}/api/v1/webhooks`, { headers: bearer() })).json();
    for (const webhook of list.data) {
      const res = await fetch(`${server.base}/api/v1/webhooks/${webhook.id}`, { method: 'DELETE', headers: bearer() });
      expect(res.status, await res.text()).toBe(200);
    }
    await eventually(async () => (await subscribers()) === 0);

    proxy.cut();
    const cutAt = server.lines().length;
    const res = await fetch(`${server.base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: JSON.stringify({ url: 'https://127.0.0.1:9/during-outage', filters: { severity: 'critical' } }),
    });
    expect(res.status).toBe(201);
    await server.waitForLog(subscribeFailed, cutAt);
    const issues = await fetch(`${server.base}/api/v1/issues`);
    expect(issues.status, await issues.text()).toBe(200);

    proxy.restore();
    await server.waitForLog(reachable, cutAt);
    await eventually(async () => (await subscribers()) === 1);
    expect(server.lines().filter((l) => l.level === 'error')).toEqual([]);
  });

  for (const [outage, tag] of [
    ['cut', '5801'],
    ['stall', '5802'],
  ] as const) {
    it(`answers an admin ingest while Redis ${outage === 'cut' ? 'refuses connections' : 'hangs'}, and publishes its event once Redis is back`, {
      timeout: 120_000,
    }, async () => {
      // Straight to Redis, not through the proxy: what the server published, when it did.
      const listener = new Redis(redisUrl!);
      const published: { eventId: string; issueIds: string[] }[] = [];
      listener.on('message', (_channel: string, message: string) => published.push(JSON.parse(message)));
      await listener.subscribe(channel);
      try {
        if (outage === 'cut') proxy.cut();
        else proxy.stall();
        const res = await fetch(`${server.base}/api/v1/admin/ingest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...adminHeaders },
          body: JSON.stringify(clonedAdvisories(1, tag)[0]),
        });
        // Answered with Redis still down: nothing has reached it.
        expect(res.status, await res.text()).toBe(200);
        expect(published).toEqual([]);

        proxy.restore();
        const event = await eventually(async () => published[0], 60_000);
        expect(event.issueIds).toHaveLength(1);
        const [issue] = await (await fetch(`${server.base}/api/v1/issues/${event.issueIds[0]}`)).json().then((b) => [b.data]);
        expect(issue.cveId).toBe(`CVE-2099-${parseInt(tag, 16) * 10_000}`);
      } finally {
        proxy.restore();
        listener.disconnect();
      }
    });
  }
});
