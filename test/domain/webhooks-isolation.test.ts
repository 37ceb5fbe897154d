// One owner's misbehaving receivers cannot hold up anyone else: delivery slots are shared per
// webhook, per key and per host; a key has a bounded number of webhooks; a receiver that answers
// 2xx and then trickles its body has accepted; a plain-HTTP receiver is named as such.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createWebhookDispatcher } from '../../src/schema/issue-stream.js';
import type { Dispatcher } from '../../src/webhooks/dispatcher.js';
import { newSecret } from '../../src/webhooks/signing.js';
import { createDeliveryWorker, type DeliveryWorker, type WorkerOptions } from '../../src/webhooks/worker.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createReceiver, testCertificate, type Receiver } from '../helpers/https-receiver.js';
import { eventually, publishIssues, registerWebhookRest, webhookKey } from '../helpers/webhooks.js';

const log = createLogger('silent');

let t: TestApp;
let dispatcher: Dispatcher;
let worker: DeliveryWorker | undefined;
const servers: Server[] = [];

beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, webhooksPerKey: 3 });
  dispatcher = createWebhookDispatcher({ config: t.config, db: t.db, log, pubsub: t.pubsub }, { onDeliveries: () => worker?.wake(), refreshIntervalMs: 50 });
  await dispatcher.start();
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await t.db.prisma.webhook.deleteMany();
});

afterAll(async () => {
  await dispatcher?.stop();
  await t?.close();
});

function startWorker(options: Partial<WorkerOptions>) {
  worker = createDeliveryWorker(
    { db: t.db, log },
    { allowPrivateTargets: true, ca: testCertificate().cert, pollIntervalMs: 20, retry: { maxAttempts: 1 }, ...options },
  );
  worker.start();
}

async function addWebhook(url: string, ownerKeyHash: string, filters: object) {
  return t.db.prisma.webhook.create({ data: { url, filters, ownerKeyHash, secret: newSecret() } });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

describe('fair shares', () => {
  let hanging: Receiver;
  let healthy: Receiver;
  let release: () => void;

  beforeAll(async () => {
    const released = new Promise<void>((resolve) => (release = resolve));
    hanging = await createReceiver(async () => (await released, 204));
    healthy = await createReceiver();
  });
  afterAll(async () => {
    release();
    await hanging?.close();
    await healthy?.close();
  });

  it("delivers to a healthy receiver at once while two other keys' webhooks hang, and holds each host to its share", { timeout: 90_000 }, async () => {
    // Twelve webhooks of two keys at one hanging receiver, one webhook of a third key elsewhere.
    // Key a1's deliveries come first, so they are the host's oldest: the host's third place must
    // still go to key a2 (a1 is at its share of two), not stay empty.
    for (let i = 0; i < 12; i++) await addWebhook(hanging.url(`/hang-${i}`), i % 2 ? 'key-a1' : 'key-a2', { severity: i % 2 ? 'critical' : 'high' });
    await addWebhook(healthy.url('/healthy'), 'key-b', { severity: 'low' });
    await dispatcher.refresh();
    // Attempts would hang for a minute: nothing frees a slot while the test runs.
    startWorker({ concurrency: 8, perKey: 2, perHost: 3, timeoutMs: 60_000, leaseMs: 90_000 });

    try {
      await publishIssues(t, [{ title: 'for the hanging receiver', severity: 'critical' }]);
      await publishIssues(t, [{ title: 'for the hanging receiver too', severity: 'high' }]);
      await hanging.waitFor((r) => r.length >= 3);
      expect(new Set(hanging.requests.map((r) => r.json.issues[0].severity))).toEqual(new Set(['critical', 'high']));
      await publishIssues(t, [{ title: 'for the healthy receiver', severity: 'low' }]);
      const [delivered] = await healthy.waitFor((r) => r.length >= 1, 20_000);
      expect(delivered!.json.issues[0].title).toBe('for the healthy receiver');
      // The hanging host never had more than its three, though slots were free (the healthy one was claimed).
      expect(hanging.requests).toHaveLength(3);
      expect(await t.db.prisma.webhookDelivery.count({ where: { status: 'delivering', webhook: { url: { contains: '/hang-' } } } })).toBe(3);
    } finally {
      release(); // the stuck attempts end, and the worker can stop
    }
  });
});

describe('receivers', () => {
  it('counts a 2xx whose body trickles on as a success, not a timeout', async () => {
    const { key, cert } = testCertificate();
    const port = await listening(
      createHttpsServer({ key, cert }, (req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted, and more to come');
        // ...and the rest never comes while the test runs.
      }),
    );
    await addWebhook(`https://127.0.0.1:${port}/slow-body`, 'key-slow', {});
    await dispatcher.refresh();
    startWorker({ timeoutMs: 1000 });
    await publishIssues(t, [{ title: 'slow body' }]);
    const delivery = await eventually(() => t.db.prisma.webhookDelivery.findFirst({ where: { status: { in: ['succeeded', 'dead'] } } }));
    expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 200, lastError: null });
  });

  it('says so when the receiver speaks plain HTTP on an https URL', async () => {
    const port = await listening(createHttpServer((req, res) => res.end('plain')));
    await addWebhook(`https://127.0.0.1:${port}/plain`, 'key-plain', {});
    await dispatcher.refresh();
    startWorker({ timeoutMs: 5000 });
    await publishIssues(t, [{ title: 'plain http' }]);
    const delivery = await eventually(() => t.db.prisma.webhookDelivery.findFirst({ where: { status: 'dead' } }));
    expect(delivery.lastError).toBe('TLS handshake failed: the receiver answered in plain HTTP; it must serve HTTPS at this URL');
  });
});

describe('webhooks per key', () => {
  it('refuses a registration beyond WEBHOOKS_PER_KEY with a 400 envelope, also when they arrive together', async () => {
    const register = (n: number) => registerWebhookRest(t, { url: `https://127.0.0.1:9/cap-${n}` });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(register));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 400, 400]);
    expect(answers.find((a) => a.status === 400)!.body).toEqual({
      error: { message: 'A key may have at most 3 webhooks; delete one before registering another', status: 400 },
    });
    expect(await t.db.prisma.webhook.count()).toBe(3);
  });
});
