// Webhook delivery end to end: publish -> Subscription.newIssues -> outbox -> worker -> a real
// HTTPS receiver that verifies both signatures with nothing but the secret and the raw body.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createIssuePubSub } from '../../src/pubsub.js';
import { createWebhookDispatcher } from '../../src/schema/issue-stream.js';
import type { Dispatcher } from '../../src/webhooks/dispatcher.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue, specIssueFields } from '../helpers/issues.js';
import { openSubscription } from '../helpers/sse.js';
import { createReceiver, testCertificate, type Receiver, type ReceivedRequest } from '../helpers/https-receiver.js';
import { adminHeaders, adminKey as adminApiKey, loadAdvisories } from '../helpers/samples.js';
import { bearer, createWebhook, eventually, publishIssues, registerWebhookRest, webhookKey } from '../helpers/webhooks.js';

const log = createLogger('silent');
const fastRetry = { baseDelayMs: 20, factor: 2, maxDelayMs: 100, maxAttempts: 3, jitter: 0 };

let t: TestApp;
let receiver: Receiver;
let dispatcher: Dispatcher;
let worker: DeliveryWorker;

function startWorker(overrides = {}) {
  return createDeliveryWorker(
    { db: t.db, log },
    { allowPrivateTargets: true, ca: testCertificate().cert, pollIntervalMs: 20, timeoutMs: 2000, leaseMs: 20_000, retry: fastRetry, ...overrides },
  );
}

beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, adminApiKey });
  receiver = await createReceiver();
  worker = startWorker();
  dispatcher = createWebhookDispatcher({ config: t.config, db: t.db, log, pubsub: t.pubsub }, { onDeliveries: () => worker.wake(), refreshIntervalMs: 50 });
  worker.start();
  await dispatcher.start();
});

afterAll(async () => {
  await dispatcher?.stop();
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

const at = (path: string) => (requests: ReceivedRequest[]) => requests.filter((r) => r.path === path);

function verifyHexSignature(secret: string, req: ReceivedRequest): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(req.body).digest('hex')}`);
  const given = Buffer.from(String(req.headers['x-webhook-signature']));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('delivery', () => {
  it('delivers new issues to a receiver registered through REST, signed so it can verify with the secret and raw body alone', async () => {
    const registered = await registerWebhookRest(t, { url: receiver.url('/e2e') });
    expect(registered.status).toBe(201);
    const hook = registered.body.data;
    await dispatcher.refresh();
    const { issueIds } = await publishIssues(t, [
      {
        title: 'Prompt injection in agent',
        severity: 'critical',
        cvssScore: 9.8,
        cvssSeverity: 'critical',
        cveId: 'CVE-2025-0001',
        publishedAt: new Date('2025-03-01T10:00:00Z'),
      },
      { title: 'RAG poisoning study', severity: 'low', issueType: 'research', publishedAt: new Date('2025-02-01T10:00:00Z') },
    ]);
    const [req] = at('/e2e')(await receiver.waitFor((r) => at('/e2e')(r).length >= 1));
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');

    // The spec's header: hex HMAC-SHA256 of the exact body bytes, keyed by the secret string.
    expect(verifyHexSignature(hook.secret, req!)).toBe(true);
    expect(verifyHexSignature('0'.repeat(64), req!)).toBe(false);
    // Standard Webhooks: an off-the-shelf verifier accepts the very same delivery.
    const verified = new Webhook(hook.secret, { format: 'raw' }).verify(req!.body.toString('utf8'), req!.headers as Record<string, string>);
    expect(verified).toEqual(req!.json);
    expect(() => new Webhook('f'.repeat(64), { format: 'raw' }).verify(req!.body.toString('utf8'), req!.headers as Record<string, string>)).toThrow();

    const body = req!.json;
    expect(Object.keys(body)).toEqual(['event', 'issues', 'deliveredAt']);
    expect(body.event).toBe('new_issues');
    expect(body.deliveredAt).toMatch(isoMs);
    expect(body.issues.map((i: { id: string }) => i.id)).toEqual(issueIds);
    const [first, second] = body.issues;
    expect(Object.keys(first).sort()).toEqual([...specIssueFields].sort());
    expect(first).toMatchObject({
      title: 'Prompt injection in agent',
      severity: 'critical',
      cvssScore: '9.8',
      cveId: 'CVE-2025-0001',
      headline: null,
      epssScore: null,
    });
    expect(first.publishedAt).toBe('2025-03-01T10:00:00.000Z');
    expect(second).toMatchObject({ issueType: 'research', cvssScore: null, cveId: null });

    const delivery = await eventually(() =>
      t.db.prisma.webhookDelivery.findFirst({ where: { webhookId: hook.id, status: 'succeeded' }, include: { attemptLog: true } }),
    );
    expect(req!.headers['webhook-id']).toBe(delivery.id);
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([204]);
  });

  it('serialises each issue exactly as GET /api/v1/issues/:id does', async () => {
    await createWebhook(t, receiver.url('/shape'));
    await dispatcher.refresh();
    const { issueIds } = await publishIssues(t, [
      {
        title: 'Shape',
        severity: 'high',
        cvssScore: 7.5,
        cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
        epssScore: 0.42,
        epssCheckedAt: new Date('2025-04-02T03:04:05.678Z'),
        labels: ['security', 'privacy'],
        affectedVendors: ['OpenAI'],
        affectedPackages: ['langchain@<0.1 (fixed: 0.1.0)'],
        patchAvailable: true,
        disclosureDate: new Date('2025-03-30T00:00:00Z'),
        atlasIds: ['AML.T0051'],
      },
    ]);
    const [req] = at('/shape')(await receiver.waitFor((r) => at('/shape')(r).length >= 1));
    const rest = await (await t.fetch(`/api/v1/issues/${issueIds[0]}`)).json();
    expect(req!.json.issues[0]).toEqual(rest.data);
    expect(Object.keys(req!.json.issues[0])).toEqual(Object.keys(rest.data));
    expect(req!.json.issues[0]).toMatchObject({ cvssScore: '7.5', epssCheckedAt: '2025-04-02T03:04:05.678Z', disclosureDate: '2025-03-30T00:00:00.000Z' });
  });

  it('honours each filter key and sends nothing when no issue matches', async () => {
    const critical = await createWebhook(t, receiver.url('/f-critical'), { severity: 'critical' });
    const research = await createWebhook(t, receiver.url('/f-research'), { issueType: 'research' });
    const vendor = await createWebhook(t, receiver.url('/f-vendor'), { vendor: 'OpenAI' });
    const llm = await createWebhook(t, receiver.url('/f-llm'), { llmSpecific: true, severity: 'high' });
    expect(critical.filters).toEqual({ severity: 'critical', issueType: null, vendor: null, llmSpecific: null });
    await dispatcher.refresh();
    const { issueIds } = await publishIssues(t, [
      { title: 'a', severity: 'critical', llmSpecific: true },
      { title: 'b', severity: 'high', llmSpecific: true, issueType: 'research' },
      { title: 'c', severity: 'high', llmSpecific: false, affectedVendors: ['OpenAI'], vendorKeys: ['openai'] },
      { title: 'd', severity: 'low', relevant: false, issueType: 'research' },
    ]);
    const [a, b, c] = issueIds;
    const idsAt = async (path: string, n: number) => {
      const reqs = at(path)(await receiver.waitFor((r) => at(path)(r).length >= n));
      return reqs.flatMap((r) => r.json.issues.map((i: { id: string }) => i.id));
    };
    expect(await idsAt('/f-critical', 1)).toEqual([a]);
    expect((await idsAt('/f-research', 1)).sort()).toEqual([b]);
    expect(await idsAt('/f-vendor', 1)).toEqual([c]);
    expect(await idsAt('/f-llm', 1)).toEqual([b]);

    // A batch matching none of the research webhook's filter produces no delivery row at all. Its
    // group handles events in order, so once a later matching batch has arrived, e was handled.
    await publishIssues(t, [{ title: 'e', severity: 'critical', llmSpecific: false }]);
    const {
      issueIds: [f],
    } = await publishIssues(t, [{ title: 'f', severity: 'info', issueType: 'research' }]);
    expect(await idsAt('/f-research', 2)).toEqual([b, f]);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: research.id } })).toBe(2);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: vendor.id } })).toBe(1);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: llm.id } })).toBe(1);
  });

  it('retries a 500 with backoff, then succeeds, with the same webhook-id every time', async () => {
    let calls = 0;
    receiver.on('/flaky', () => (++calls <= 2 ? 500 : 200));
    const hook = await createWebhook(t, receiver.url('/flaky'));
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'flaky' }]);
    const reqs = at('/flaky')(await receiver.waitFor((r) => at('/flaky')(r).length >= 3));
    expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const req of reqs) {
      expect(verifyHexSignature(hook.secret, req)).toBe(true);
      expect(() => new Webhook(hook.secret, { format: 'raw' }).verify(req.body.toString(), req.headers as Record<string, string>)).not.toThrow();
    }
    const delivery = await eventually(() =>
      t.db.prisma.webhookDelivery.findFirst({
        where: { webhookId: hook.id, status: 'succeeded' },
        include: { attemptLog: { orderBy: { attemptedAt: 'asc' } } },
      }),
    );
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(delivery.attemptLog.map((a) => a.error)).toEqual(['HTTP 500', 'HTTP 500', null]);
    // Backoff without jitter: at least 20 ms, then at least 40 ms between attempts (lower bounds only).
    const [first, second, third] = delivery.attemptLog.map((a) => a.attemptedAt.getTime()) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(fastRetry.baseDelayMs);
    expect(third - second).toBeGreaterThanOrEqual(fastRetry.baseDelayMs * fastRetry.factor);
    expect(delivery.attempts).toBe(3);
    const webhook = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(webhook).toMatchObject({ active: true, consecutiveFailures: 0 });
  });

  it('deactivates a webhook whose receiver answers 410, and sends it nothing more', async () => {
    receiver.on('/gone', () => 410);
    const hook = await createWebhook(t, receiver.url('/gone'));
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'gone 1' }]);
    await receiver.waitFor((r) => at('/gone')(r).length >= 1);
    const webhook = await eventually(() => t.db.prisma.webhook.findFirst({ where: { id: hook.id, active: false } }));
    expect(webhook.deactivatedReason).toMatch(/410/);
    const delivery = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: hook.id } });
    expect(delivery.status).toBe('dead');

    await createWebhook(t, receiver.url('/after-gone'));
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'gone 2' }]);
    await receiver.waitFor((r) => at('/after-gone')(r).length >= 1);
    await worker.runOnce();
    expect(at('/gone')(receiver.requests)).toHaveLength(1);
  });

  it('pauses and re-activates through PATCH: nothing while paused, then only what is published after', async () => {
    const hook = await createWebhook(t, receiver.url('/resume'), { vendor: 'resume-vendor' });
    await dispatcher.refresh();
    const patch = async (body: object) => {
      const res = await t.fetch(`/api/v1/webhooks/${hook.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...bearer() },
        body: JSON.stringify(body),
      });
      return { status: res.status, data: (await res.json()).data };
    };
    expect(await patch({ active: false })).toMatchObject({ status: 200, data: { active: false, deactivatedReason: 'paused by its owner' } });
    await publishIssues(t, [{ title: 'while paused', vendorKeys: ['resume-vendor'] }]);
    expect(await patch({ active: true })).toMatchObject({ status: 200, data: { active: true, deactivatedReason: null, consecutiveFailures: 0 } });
    await publishIssues(t, [{ title: 'after resume', vendorKeys: ['resume-vendor'] }]);
    await receiver.waitFor((r) => at('/resume')(r).length >= 1);
    // A start-up replay does not bring back what was published while it was paused either.
    const replaying = createWebhookDispatcher({ config: t.config, db: t.db, log, pubsub: createIssuePubSub().pubsub }, { onDeliveries: () => worker.wake() });
    await replaying.start();
    await replaying.stop();
    await worker.runOnce();
    expect(at('/resume')(receiver.requests).map((r) => r.json.issues.map((i: { title: string }) => i.title))).toEqual([['after resume']]);
  });

  it('records the other outcomes of a batch when a webhook is deleted while its delivery is in flight', async () => {
    const doomed = await createWebhook(t, receiver.url('/doomed'), { vendor: 'doomed-vendor' });
    const kept = await createWebhook(t, receiver.url('/kept'), { vendor: 'doomed-vendor' });
    // Once both requests are in, one webhook is deleted; then both answer at once, so both
    // outcomes are written in one batch.
    let arrived = 0;
    let release!: () => void;
    const bothIn = new Promise<void>((resolve) => (release = resolve));
    const answer = async () => {
      if (++arrived === 2) {
        await t.graphql(`mutation ($id: ID!) { deleteWebhook(id: $id) { data { id } } }`, { id: doomed.id }, bearer());
        release();
      }
      await bothIn;
      return 204;
    };
    receiver.on('/doomed', answer);
    receiver.on('/kept', answer);
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'doomed', vendorKeys: ['doomed-vendor'] }]);
    const delivery = await eventually(
      () => t.db.prisma.webhookDelivery.findFirst({ where: { webhookId: kept.id, status: 'succeeded' }, include: { attemptLog: true } }),
      10_000,
    );
    expect(delivery.attemptLog).toHaveLength(1);
    expect(await t.db.prisma.webhook.count({ where: { id: doomed.id } })).toBe(0);
    expect(at('/kept')(receiver.requests)).toHaveLength(1);
  });

  it('never follows redirects: 3xx is a failure and the Location is never fetched', async () => {
    receiver.on('/redirect', () => ({ status: 302, headers: { location: receiver.url('/redirect-target') } }));
    const hook = await createWebhook(t, receiver.url('/redirect'));
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'redirect' }]);
    const delivery = await eventually(() =>
      t.db.prisma.webhookDelivery.findFirst({ where: { webhookId: hook.id, status: 'dead' }, include: { attemptLog: true } }),
    );
    expect(delivery.attemptLog).toHaveLength(fastRetry.maxAttempts);
    expect(delivery.lastError).toBe('HTTP 302: redirects are not followed');
    expect(at('/redirect')(receiver.requests)).toHaveLength(fastRetry.maxAttempts);
    expect(at('/redirect-target')(receiver.requests)).toHaveLength(0);
  });

  it('deactivates a webhook after repeated dead deliveries', async () => {
    receiver.on('/down', () => 503);
    const hook = await createWebhook(t, receiver.url('/down'), { issueType: 'incident' });
    await dispatcher.refresh();
    for (let i = 0; i < 3; i++) await publishIssues(t, [{ title: `down ${i}`, issueType: 'incident' }]);
    const webhook = await eventually(() => t.db.prisma.webhook.findFirst({ where: { id: hook.id, active: false } }));
    expect(webhook.deactivatedReason).toMatch(/3 deliveries/);
    expect(webhook.deadDeliveries).toBe(3);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: hook.id, status: 'dead' } })).toBe(3);
    expect(await t.db.prisma.deliveryAttempt.count({ where: { delivery: { webhookId: hook.id } } })).toBe(9);
  });

  it('writes one delivery per (webhook, event) however often the event is heard', async () => {
    const hook = await createWebhook(t, receiver.url('/once'), { vendor: 'once-vendor' });
    // A second dispatcher stands for a second instance hearing the same event.
    const other = createWebhookDispatcher({ config: t.config, db: t.db, log, pubsub: t.pubsub });
    await other.start();
    await dispatcher.refresh();
    try {
      const event = await publishIssues(t, [{ title: 'once', vendorKeys: ['once-vendor'] }]);
      t.pubsub.publish('newIssues', event); // redelivered by the pub/sub
      await receiver.waitFor((r) => at('/once')(r).length >= 1);
      await other.refresh();
      await worker.runOnce();
      expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(1);
      expect(at('/once')(receiver.requests)).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });

  it('replays events published while no dispatcher was listening', async () => {
    const hook = await createWebhook(t, receiver.url('/replay'), { vendor: 'replay-vendor' });
    await dispatcher.stop();
    // Issues and their event row are committed, but nobody heard the publish (a crash, say).
    const { issueIds } = await publishIssues(t, [{ title: 'missed', vendorKeys: ['replay-vendor'] }]);
    dispatcher = createWebhookDispatcher({ config: t.config, db: t.db, log, pubsub: t.pubsub }, { onDeliveries: () => worker.wake(), refreshIntervalMs: 50 });
    await dispatcher.start();
    const [req] = at('/replay')(await receiver.waitFor((r) => at('/replay')(r).length >= 1));
    expect(req!.json.issues.map((i: { id: string }) => i.id)).toEqual(issueIds);
    expect(verifyHexSignature(hook.secret, req!)).toBe(true);
  });

  it('picks up in its periodic sweep an event the live subscription never heard', async () => {
    const hook = await createWebhook(t, receiver.url('/swept'), { vendor: 'swept-vendor' });
    // A second dispatcher on a pub/sub that never carries anything: only its sweep can find the event.
    const deaf = createIssuePubSub();
    const sweeping = createWebhookDispatcher(
      { config: t.config, db: t.db, log, pubsub: deaf.pubsub },
      { onDeliveries: () => worker.wake(), sweepIntervalMs: 100 },
    );
    await sweeping.start();
    await dispatcher.refresh(); // the group is live here too, its start-up replay done
    try {
      // Committed like an ingest, but the publish is lost (Redis drops messages during a reconnect).
      const rows = await t.db.prisma.issue.createManyAndReturn({ data: [makeIssue({ title: 'swept', vendorKeys: ['swept-vendor'] })], select: { id: true } });
      await t.db.prisma.issueEvent.create({ data: { issueIds: rows.map((r) => r.id) } });
      const [req] = at('/swept')(await receiver.waitFor((r) => at('/swept')(r).length >= 1, 10_000));
      expect(req!.json.issues.map((i: { id: string }) => i.id)).toEqual(rows.map((r) => r.id));
      expect(verifyHexSignature(hook.secret, req!)).toBe(true);
    } finally {
      await sweeping.stop();
      await deaf.close();
    }
  });

  it('lets several workers share the outbox without sending anything twice', async () => {
    await worker.stop();
    // A timeout longer than any request takes here: a receiver that answers after the sender gave
    // up gets the retry too (at-least-once), and this test is about claims, not timeouts.
    const sharing = { concurrency: 3, timeoutMs: 10_000 };
    const workers = [startWorker(sharing), startWorker(sharing), startWorker(sharing)];
    try {
      const hooks = [];
      for (let i = 0; i < 6; i++) hooks.push(await createWebhook(t, receiver.url(`/shared-${i}`), { vendor: 'shared' }));
      await dispatcher.refresh();
      for (let i = 0; i < 5; i++) await publishIssues(t, [{ title: `shared ${i}`, vendorKeys: ['shared'] }]);
      for (const w of workers) w.start();
      const shared = (r: ReceivedRequest[]) => r.filter((x) => x.path.startsWith('/shared-'));
      await receiver.waitFor((r) => shared(r).length >= 30);
      await Promise.all(workers.map((w) => w.runOnce()));
      const ids = shared(receiver.requests).map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      worker = startWorker();
      worker.start();
    }
  });
});

describe('ping and redelivery', () => {
  it('sends a signed ping and lists it with its attempt', async () => {
    const hook = await createWebhook(t, receiver.url('/ping'));
    const { body } = await t.graphql(`mutation ($id: ID!) { pingWebhook(id: $id) { data { id kind status } } }`, { id: hook.id }, bearer());
    const queued = body.data.pingWebhook.data;
    expect(queued).toMatchObject({ kind: 'ping', status: 'pending' });
    const [req] = at('/ping')(await receiver.waitFor((r) => at('/ping')(r).length >= 1));
    expect(req!.json).toEqual({ event: 'ping', webhookId: hook.id, deliveredAt: expect.stringMatching(isoMs) });
    expect(req!.headers['webhook-id']).toBe(queued.id);
    expect(verifyHexSignature(hook.secret, req!)).toBe(true);
    const list = await eventually(async () => {
      const { body } = await t.graphql(
        `query ($id: ID!) { webhookDeliveries(webhookId: $id) { data { id kind status lastStatusCode attempts { statusCode error durationMs attemptedAt } } meta { total limit offset } } }`,
        { id: hook.id },
        bearer(),
      );
      const data = body.data.webhookDeliveries;
      return data.data[0]?.status === 'succeeded' ? data : undefined;
    });
    expect(list.meta).toEqual({ total: 1, limit: 20, offset: 0 });
    expect(list.data[0]).toMatchObject({ id: queued.id, kind: 'ping', lastStatusCode: 204, attempts: [{ statusCode: 204, error: null }] });
    expect(list.data[0].attempts[0].attemptedAt).toMatch(isoMs);
  });

  it('signs with the old secret too for the overlap after a rotation, and only with the new one after overlapHours 0', async () => {
    const hook = await createWebhook(t, receiver.url('/rotated'));
    const rotate = async (overlapHours?: number) => {
      const res = await t.fetch(`/api/v1/webhooks/${hook.id}/rotate-secret`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer() },
        body: JSON.stringify(overlapHours === undefined ? {} : { overlapHours }),
      });
      return (await res.json()).data.secret as string;
    };
    const ping = async () => {
      const before = at('/rotated')(receiver.requests).length;
      await t.graphql(`mutation ($id: ID!) { pingWebhook(id: $id) { data { id } } }`, { id: hook.id }, bearer());
      return at('/rotated')(await receiver.waitFor((r) => at('/rotated')(r).length > before)).at(-1)!;
    };
    const verifies = (secret: string, req: ReceivedRequest) => {
      try {
        new Webhook(secret, { format: 'raw' }).verify(req.body.toString('utf8'), req.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };

    const second = await rotate();
    const overlapping = await ping();
    expect(String(overlapping.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(second, overlapping), verifies(hook.secret, overlapping)]).toEqual([true, true]);
    expect([verifyHexSignature(second, overlapping), verifyHexSignature(hook.secret, overlapping)]).toEqual([true, false]);

    const third = await rotate(0);
    const after = await ping();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([verifies(third, after), verifies(second, after), verifies(hook.secret, after)]).toEqual([true, false, false]);

    const bad = await t.fetch(`/api/v1/webhooks/${hook.id}/rotate-secret`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: '{"overlapHours": 169}',
    });
    expect(await bad.json()).toEqual({ error: { message: 'overlapHours must be between 0 and 168', status: 400 } });
  });

  it('redelivers a delivery with the same webhook-id', async () => {
    const hook = await createWebhook(t, receiver.url('/again'), { vendor: 'again' });
    await dispatcher.refresh();
    await publishIssues(t, [{ title: 'again', vendorKeys: ['again'] }]);
    const [first] = at('/again')(await receiver.waitFor((r) => at('/again')(r).length >= 1));
    const delivery = await eventually(() => t.db.prisma.webhookDelivery.findFirst({ where: { webhookId: hook.id, status: 'succeeded' } }));
    const { body } = await t.graphql(
      `mutation ($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { data { id status } } }`,
      { w: hook.id, d: delivery.id },
      bearer(),
    );
    // Due at once: a worker may already have claimed (or even finished) it by the time it is read back.
    expect(body.data.redeliverWebhookDelivery.data).toEqual({ id: delivery.id, status: expect.stringMatching(/^(pending|delivering|succeeded)$/) });
    const reqs = at('/again')(await receiver.waitFor((r) => at('/again')(r).length >= 2));
    expect(reqs[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(reqs[1]!.json.issues).toEqual(first!.json.issues);
    const after = await eventually(() =>
      t.db.prisma.webhookDelivery.findFirst({ where: { id: delivery.id, status: 'succeeded' }, include: { attemptLog: true } }),
    );
    expect(after.attemptLog).toHaveLength(2);
  });
});

describe('Subscription.newIssues over SSE', () => {
  it('streams matching new issues to a GraphQL client', async () => {
    const subscription = await openSubscription(
      t,
      'subscription { newIssues(filter: {severity: critical}) { eventId issues { id title severity cvssScore publishedAt } } }',
    );
    expect(subscription.response.status).toBe(200);
    expect(subscription.response.headers.get('content-type')).toMatch(/text\/event-stream/);
    try {
      // What is published before the subscription listens is not seen: send critical sentinels
      // until one arrives, then the batches under test, which events reach in order.
      let listening = false;
      const sentinels = (async () => {
        while (!listening) {
          await publishIssues(t, [{ title: 'sse sentinel', severity: 'critical' }]);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await subscription.next('newIssues');
      listening = true;
      await sentinels;
      await publishIssues(t, [{ title: 'sse low', severity: 'low' }]);
      await publishIssues(t, [
        { title: 'sse critical', severity: 'critical', cvssScore: 9.1 },
        { title: 'sse medium', severity: 'medium' },
      ]);
      let message = await subscription.next('newIssues');
      while (message.data.newIssues.issues[0].title === 'sse sentinel') message = await subscription.next('newIssues');
      // The batch with no critical issue was skipped; of the next, only the critical issue came.
      expect(message.data.newIssues.issues).toEqual([
        { id: expect.any(String), title: 'sse critical', severity: 'critical', cvssScore: '9.1', publishedAt: '2025-01-01T00:00:00.000Z' },
      ]);
    } finally {
      await subscription.close();
    }
  });
});

describe('end to end through the admin ingest route', () => {
  it('delivers every newly ingested matching issue, and nothing for a re-ingest', async () => {
    const all = (await registerWebhookRest(t, { url: receiver.url('/ingest-all') })).body.data;
    const critical = (await registerWebhookRest(t, { url: receiver.url('/ingest-critical'), filters: { severity: 'critical' } })).body.data;
    await dispatcher.refresh();
    const ingest = () =>
      t.fetch('/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminHeaders },
        body: JSON.stringify({ items: loadAdvisories() }),
      });
    const res = await ingest();
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.created).toBeGreaterThan(50);

    // What a REST client sees: the served issues among those created, and the critical ones.
    const served: Record<string, unknown>[] = [];
    for (const id of data.ids as string[]) {
      const one = await t.fetch(`/api/v1/issues/${id}`);
      if (one.status === 200) served.push((await one.json()).data);
    }
    const servedIds = served.map((i) => i.id).sort();
    const criticalIds = served
      .filter((i) => i.severity === 'critical')
      .map((i) => i.id)
      .sort();
    expect(criticalIds.length).toBeGreaterThan(0);

    const issuesAt = async (path: string, expected: number) => {
      const reqs = at(path)(await receiver.waitFor((r) => at(path)(r).flatMap((x) => x.json.issues).length >= expected));
      return reqs;
    };
    const allReqs = await issuesAt('/ingest-all', servedIds.length);
    const received = allReqs.flatMap((r) => r.json.issues);
    expect(received.map((i: { id: string }) => i.id).sort()).toEqual(servedIds);
    // Each exactly as GET /api/v1/issues/:id serves it, and each delivery verifiable.
    for (const issue of received) expect(issue).toEqual(served.find((s) => s.id === issue.id));
    for (const req of allReqs) {
      expect(verifyHexSignature(all.secret, req)).toBe(true);
      expect(() => new Webhook(all.secret, { format: 'raw' }).verify(req.body.toString(), req.headers as Record<string, string>)).not.toThrow();
    }
    const criticalReqs = await issuesAt('/ingest-critical', criticalIds.length);
    expect(criticalReqs.flatMap((r) => r.json.issues.map((i: { id: string }) => i.id)).sort()).toEqual(criticalIds);
    expect(criticalReqs.every((r) => verifyHexSignature(critical.secret, r))).toBe(true);

    // Unchanged content publishes nothing (no event row: ingest writes it with the issues), so
    // nothing more is delivered.
    const events = await t.db.prisma.issueEvent.count();
    const again = await (await ingest()).json();
    expect(again.data.created + again.data.updated).toBe(0);
    expect(await t.db.prisma.issueEvent.count()).toBe(events);
    await dispatcher.refresh();
    await worker.runOnce();
    expect(at('/ingest-all')(receiver.requests)).toHaveLength(allReqs.length);
  });
});
