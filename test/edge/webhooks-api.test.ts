// Webhook registration and management: bearer keys (configured and CLI-issued), validation,
// ownership, secrets shown only on creation and rotation.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { issueKey } from '../../src/keys/api-keys.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { bearer, createWebhook, registerWebhookRest, webhookKey } from '../helpers/webhooks.js';

/** Computed here, not with the service's own helper. */
const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

let t: TestApp;
let otherKey: string;
beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: false });
  otherKey = (await issueKey(t.db.prisma, 'other team')).key;
});
afterAll(async () => t?.close());

const create = `mutation ($url: String!, $filters: WebhookFiltersInput) {
  createWebhook(url: $url, filters: $filters) { data { id url secret active filters { severity issueType vendor llmSpecific } } }
}`;
const list = '{ webhooks { data { id url active filters { severity } createdAt } } }';
const read = 'query ($id: ID!) { webhook(id: $id) { data { id url active deactivatedReason consecutiveFailures } } }';

const publicUrl = 'https://93.184.216.34/hooks/secwire';

describe('bearer keys', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong key', bearer('not-the-key')],
    ['another scheme', { authorization: `Basic ${webhookKey}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses %s with 401 and creates nothing', async (_label, headers) => {
    const before = await t.db.prisma.webhook.count();
    const res = await t.graphql(create, { url: publicUrl }, headers);
    expect(res.status).toBe(401);
    expect(res.body.errors![0]).toMatchObject({ message: 'Missing or invalid bearer key', extensions: { code: 'UNAUTHENTICATED' } });
    expect(await t.db.prisma.webhook.count()).toBe(before);
    expect((await t.graphql(list, {}, headers)).status).toBe(401);
  });

  it('answers 401 to every key when WEBHOOK_API_KEY is unset and no key was issued', async () => {
    const bare = await createTestApp({});
    try {
      const res = await bare.graphql(create, { url: publicUrl }, bearer('anything'));
      expect(res.status).toBe(401);
    } finally {
      await bare.close();
    }
  });

  it('accepts an issued key and stops accepting it once revoked', async () => {
    const issued = await issueKey(t.db.prisma, 'temporary');
    expect(issued.key).toMatch(/^swk_[A-Za-z0-9_-]{43}$/);
    const row = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(row.keyHash).toBe(sha256Hex(issued.key));
    expect(JSON.stringify(row)).not.toContain(issued.key);
    expect((await t.graphql(create, { url: publicUrl }, bearer(issued.key))).status).toBe(200);
    expect((await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).lastUsedAt).not.toBeNull();
    await t.db.prisma.apiKey.update({ where: { id: issued.id }, data: { revoked: true } });
    expect((await t.graphql(list, {}, bearer(issued.key))).status).toBe(401);
  });
});

describe('createWebhook', () => {
  it('answers {data: {id, url, secret, active, filters}} with a fresh 32-byte hex secret', async () => {
    const { status, body } = await t.graphql(create, { url: publicUrl, filters: { severity: 'critical', vendor: ' OpenAI ', llmSpecific: true } }, bearer());
    expect(status).toBe(200);
    const data = body.data.createWebhook.data;
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: publicUrl,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      active: true,
      filters: { severity: 'critical', issueType: null, vendor: 'OpenAI', llmSpecific: true },
    });
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: data.id } });
    expect(row).toMatchObject({
      secret: data.secret,
      ownerKeyHash: sha256Hex(webhookKey),
      filters: { severity: 'critical', vendor: 'OpenAI', llmSpecific: true },
    });
    const second = await createWebhook(t, publicUrl);
    expect(second.secret).not.toBe(data.secret);
  });

  it.each([
    ['an http URL', { url: 'http://93.184.216.34/hook' }, 'url must use https'],
    ['a relative URL', { url: '/hook' }, 'url must be an absolute https URL'],
    ['a URL that is not one', { url: 'not a url' }, 'url must be an absolute https URL'],
    ['an overlong URL', { url: `https://93.184.216.34/${'a'.repeat(2100)}` }, 'url must be at most 2048 characters'],
    ['an overlong vendor', { url: publicUrl, filters: { vendor: 'v'.repeat(201) } }, 'vendor must be at most 200 characters'],
  ])('refuses %s with a 400 and creates nothing', async (_label, variables, message) => {
    const before = await t.db.prisma.webhook.count();
    const { status, body } = await t.graphql(create, variables, bearer());
    expect(status).toBe(400);
    expect(body.errors![0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST' } });
    expect(await t.db.prisma.webhook.count()).toBe(before);
  });

  it.each([
    ['an unknown severity', { severity: 'extreme' }],
    ['an unknown issue type', { issueType: 'rumour' }],
    ['a non-boolean llmSpecific', { llmSpecific: 'yes' }],
    ['an unknown filter key', { label: 'security' }],
  ])('refuses filters with %s', async (_label, filters) => {
    const before = await t.db.prisma.webhook.count();
    const { status, body } = await t.graphql(create, { url: publicUrl, filters }, bearer());
    expect(status).toBe(400);
    expect(body.errors![0].message).toMatch(/filters/);
    expect(await t.db.prisma.webhook.count()).toBe(before);
  });
});

describe('management', () => {
  it("shows a key its own webhooks only, without secrets, and 404s everyone else's", async () => {
    const mine = await createWebhook(t, 'https://93.184.216.34/mine');
    const theirs = await createWebhook(t, 'https://93.184.216.34/theirs', undefined, otherKey);

    const own = (await t.graphql(list, {}, bearer())).body.data.webhooks.data.map((w: { id: string }) => w.id);
    expect(own).toContain(mine.id);
    expect(own).not.toContain(theirs.id);
    const other = (await t.graphql(list, {}, bearer(otherKey))).body.data.webhooks.data;
    expect(other.map((w: { id: string }) => w.id)).toEqual([theirs.id]);

    const res = await t.graphql(read, { id: mine.id }, bearer());
    expect(res.body.data.webhook.data).toEqual({
      id: mine.id,
      url: 'https://93.184.216.34/mine',
      active: true,
      deactivatedReason: null,
      consecutiveFailures: 0,
    });
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const miss = await t.graphql(read, { id }, bearer());
      expect(miss.status).toBe(404);
      expect(miss.body.errors![0]).toMatchObject({ message: 'Webhook not found', extensions: { code: 'NOT_FOUND' } });
    }
    for (const mutation of [
      'mutation ($id: ID!) { deleteWebhook(id: $id) { data { id } } }',
      'mutation ($id: ID!) { rotateWebhookSecret(id: $id) { data { secret } } }',
      'mutation ($id: ID!) { pingWebhook(id: $id) { data { id } } }',
    ]) {
      expect((await t.graphql(mutation, { id: theirs.id }, bearer())).status).toBe(404);
    }
    const deliveries = await t.graphql('query ($id: ID!) { webhookDeliveries(webhookId: $id) { meta { total } } }', { id: theirs.id }, bearer());
    expect(deliveries.status).toBe(404);
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(row.secret).toBe(theirs.secret);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: theirs.id } })).toBe(0);
  });

  it('never answers the secret outside creation and rotation', async () => {
    const res = await t.graphql('{ webhooks { data { id secret } } }', {}, bearer());
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0].message).toMatch(/Cannot query field "secret"/);
  });

  it('rotates the secret, answering the new one once', async () => {
    const hook = await createWebhook(t, 'https://93.184.216.34/rotate');
    const { body } = await t.graphql('mutation ($id: ID!) { rotateWebhookSecret(id: $id) { data { id url secret active } } }', { id: hook.id }, bearer());
    const rotated = body.data.rotateWebhookSecret.data;
    expect(rotated).toMatchObject({ id: hook.id, url: hook.url, active: true });
    expect(rotated.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect((await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).secret).toBe(rotated.secret);
  });

  it('deletes a webhook with its deliveries', async () => {
    const hook = await createWebhook(t, 'https://93.184.216.34/delete');
    await t.graphql('mutation ($id: ID!) { pingWebhook(id: $id) { data { id } } }', { id: hook.id }, bearer());
    const { body } = await t.graphql('mutation ($id: ID!) { deleteWebhook(id: $id) { data { id } } }', { id: hook.id }, bearer());
    expect(body.data.deleteWebhook.data).toEqual({ id: hook.id });
    expect(await t.db.prisma.webhook.count({ where: { id: hook.id } })).toBe(0);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(0);
    expect((await t.graphql(read, { id: hook.id }, bearer())).status).toBe(404);
  });

  it('pages deliveries and validates the paging arguments', async () => {
    const hook = await createWebhook(t, 'https://93.184.216.34/paging');
    for (let i = 0; i < 3; i++) await t.graphql('mutation ($id: ID!) { pingWebhook(id: $id) { data { id } } }', { id: hook.id }, bearer());
    const page = await t.graphql(
      'query ($id: ID!) { webhookDeliveries(webhookId: $id, limit: 2, offset: 1, status: pending) { data { kind status } meta { total limit offset } } }',
      { id: hook.id },
      bearer(),
    );
    expect(page.body.data.webhookDeliveries).toEqual({
      data: [
        { kind: 'ping', status: 'pending' },
        { kind: 'ping', status: 'pending' },
      ],
      meta: { total: 3, limit: 2, offset: 1 },
    });
    const clamped = await t.graphql('query ($id: ID!) { webhookDeliveries(webhookId: $id, limit: 500) { meta { limit } } }', { id: hook.id }, bearer());
    expect(clamped.body.data.webhookDeliveries.meta.limit).toBe(100);
    for (const args of ['limit: 0', 'offset: -1']) {
      const bad = await t.graphql(`query ($id: ID!) { webhookDeliveries(webhookId: $id, ${args}) { meta { total } } }`, { id: hook.id }, bearer());
      expect(bad.status).toBe(400);
    }
  });

  it('refuses to ping or redeliver for an inactive webhook', async () => {
    const hook = await createWebhook(t, 'https://93.184.216.34/inactive');
    await t.db.prisma.webhook.update({ where: { id: hook.id }, data: { active: false } });
    const res = await t.graphql('mutation ($id: ID!) { pingWebhook(id: $id) { data { id } } }', { id: hook.id }, bearer());
    expect(res.status).toBe(400);
    expect(res.body.errors![0].message).toBe('Webhook is inactive');
    const dead = await t.db.prisma.webhookDelivery.create({ data: { webhookId: hook.id, payload: Buffer.from('{}'), status: 'dead' } });
    const redeliver = await t.graphql(
      'mutation ($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { data { id } } }',
      { w: hook.id, d: dead.id },
      bearer(),
    );
    expect(redeliver.status).toBe(400);
    expect(redeliver.body.errors![0].message).toBe('Webhook is inactive');
    expect(await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: dead.id } })).toEqual(dead);
  });
});

describe('REST /api/v1/webhooks', () => {
  const rest = async (method: string, path: string, key: string | null = webhookKey) => {
    const res = await t.fetch(`/api/v1${path}`, { method, headers: key === null ? {} : bearer(key) });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('registers with 201 {data: {id, url, secret, active, filters}}', async () => {
    const { status, body } = await registerWebhookRest(t, { url: 'https://93.184.216.34/rest', filters: { issueType: 'vulnerability', llmSpecific: false } });
    expect(status).toBe(201);
    expect(body).toEqual({
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'https://93.184.216.34/rest',
        secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        active: true,
        filters: { severity: null, issueType: 'vulnerability', vendor: null, llmSpecific: false },
        watchedComponents: 0,
      },
    });
  });

  it('echoes the stack it stored as watchedComponents, on registration and on PATCH', async () => {
    const sbom = JSON.parse(await readFile(new URL('../fixtures/sbom/python-ai-stack.cdx-1.6.json', import.meta.url), 'utf8'));
    const created = await registerWebhookRest(t, { url: 'https://93.184.216.34/rest-sbom', stack: { sbom } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ secret: expect.stringMatching(/^[0-9a-f]{64}$/), active: true, watchedComponents: 8 });
    const patch = async (body: unknown) => {
      const res = await t.fetch(`/api/v1/webhooks/${created.body.data.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...bearer() },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect(await patch({ stack: { packages: ['vllm@0.5.0', 'gradio@4.0.0'] } })).toMatchObject({ status: 200, body: { data: { watchedComponents: 2 } } });
    expect(await patch({ stack: null })).toMatchObject({ status: 200, body: { data: { watchedComponents: 0 } } });
    const { body } = await t.graphql(
      'mutation ($url: String!, $stack: WebhookStackInput) { createWebhook(url: $url, stack: $stack) { data { watchedComponents } } }',
      { url: 'https://93.184.216.34/graphql-sbom', stack: { sbom } },
      bearer(),
    );
    expect(body).toEqual({ data: { createWebhook: { data: { watchedComponents: 8 } } } });
  });

  it.each([
    ['no key', { url: publicUrl }, null, 401, 'Missing or invalid bearer key'],
    ['a wrong key', { url: publicUrl }, 'nope', 401, 'Missing or invalid bearer key'],
    // The key is checked before the body: without one, a bad body says nothing about itself.
    ['no key and no url', {}, null, 401, 'Missing or invalid bearer key'],
    ['a wrong key and a bad severity', { url: publicUrl, filters: { severity: 'extreme' } }, 'nope', 401, 'Missing or invalid bearer key'],
    ['no url', {}, webhookKey, 400, 'url is required'],
    ['a url that is not a string', { url: 42 }, webhookKey, 400, 'url must be a string'],
    ['an http url', { url: 'http://93.184.216.34/x' }, webhookKey, 400, 'url must use https'],
    ['a loopback url', { url: 'https://127.0.0.1/x' }, webhookKey, 400, 'url must not point to a private, loopback or otherwise non-public address'],
    [
      'a bad severity',
      { url: publicUrl, filters: { severity: 'extreme' } },
      webhookKey,
      400,
      'filters.severity must be one of: critical, high, medium, low, info',
    ],
    [
      'a bad issueType',
      { url: publicUrl, filters: { issueType: 'rumour' } },
      webhookKey,
      400,
      'filters.issueType must be one of: vulnerability, incident, news, regulatory, research',
    ],
    ['a non-boolean llmSpecific', { url: publicUrl, filters: { llmSpecific: 'maybe' } }, webhookKey, 400, 'filters.llmSpecific must be true or false'],
    [
      'an unknown filter',
      { url: publicUrl, filters: { label: 'security' } },
      webhookKey,
      400,
      'filters.label is not a known key (expected: severity, issueType, vendor, llmSpecific)',
    ],
    ['filters that are not an object', { url: publicUrl, filters: ['high'] }, webhookKey, 400, 'filters must be an object'],
  ])('answers %s with the error envelope and creates nothing', async (_label, body, key, status, message) => {
    const before = await t.db.prisma.webhook.count();
    const res = await registerWebhookRest(t, body, key);
    expect(res).toEqual({ status, body: { error: { message, status } } });
    expect(await t.db.prisma.webhook.count()).toBe(before);
  });

  it('answers a body that is not JSON with a 400 envelope', async () => {
    const res = await t.fetch('/api/v1/webhooks', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer() }, body: '{url:' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'The request body must be JSON', status: 400 } });
    const anonymous = await t.fetch('/api/v1/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{url:' });
    expect(anonymous.status).toBe(401);
  });

  it('changes url, filters and state with PATCH, for the owning key only', async () => {
    const hook = (await registerWebhookRest(t, { url: 'https://93.184.216.34/patch', filters: { severity: 'high' } })).body.data;
    const patch = async (body: unknown, key: string | null = webhookKey, id = hook.id) => {
      const headers = { 'content-type': 'application/json', ...(key === null ? {} : bearer(key)) };
      const res = await t.fetch(`/api/v1/webhooks/${id}`, { method: 'PATCH', headers, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const changed = await patch({ url: 'https://93.184.216.34/patched', filters: { vendor: 'OpenAI', llmSpecific: true } });
    expect(changed).toEqual({
      status: 200,
      body: {
        data: {
          id: hook.id,
          url: 'https://93.184.216.34/patched',
          active: true,
          deactivatedReason: null,
          consecutiveFailures: 0,
          previousSecretExpiresAt: null,
          filters: { severity: null, issueType: null, vendor: 'OpenAI', llmSpecific: true },
          watchedComponents: 0,
          createdAt: expect.stringMatching(/Z$/),
        },
      },
    });
    expect(JSON.stringify(changed.body)).not.toMatch(/secret/);
    // The same filters again (jsonb stores its keys in another order) are no change: the
    // subscription keeps its start, so nothing published meanwhile is skipped.
    await patch({ filters: { severity: 'high', vendor: 'OpenAI' } });
    const subscribed = (await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).subscribedAt;
    await patch({ url: 'https://93.184.216.34/patched-again', filters: { vendor: 'OpenAI', severity: 'high' } });
    expect((await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).subscribedAt).toEqual(subscribed);
    // New filters replace the old ones entirely; {} matches everything.
    expect((await patch({ filters: {} })).body.data.filters).toEqual({ severity: null, issueType: null, vendor: null, llmSpecific: null });

    const before = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    for (const [body, status, message] of [
      [{}, 400, 'Give at least one of url, filters, active, events, stack'],
      [{ url: 'https://10.0.0.1/x' }, 400, 'url must not point to a private, loopback or otherwise non-public address'],
      [{ filters: { severity: 'extreme' } }, 400, 'filters.severity must be one of: critical, high, medium, low, info'],
      [{ active: 'yes' }, 400, 'active must be true or false'],
    ] as const) {
      expect(await patch(body), JSON.stringify(body)).toEqual({ status, body: { error: { message, status } } });
    }
    expect(await patch({ active: false }, null)).toMatchObject({ status: 401 });
    expect(await patch({ active: false }, otherKey)).toEqual({ status: 404, body: { error: { message: 'Webhook not found', status: 404 } } });
    expect(await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toEqual(before);
  });

  it('lists, reads, pings, pages deliveries, redelivers, rotates and deletes for the owning key only', async () => {
    const hook = (await registerWebhookRest(t, { url: 'https://93.184.216.34/rest-manage' })).body.data;
    const theirs = (await registerWebhookRest(t, { url: 'https://93.184.216.34/rest-theirs' }, otherKey)).body.data;

    const listed = await rest('GET', '/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(listed.body.data.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
    expect(JSON.stringify(listed.body)).not.toMatch(/secret/);
    expect((await rest('GET', '/webhooks', null)).status).toBe(401);

    const one = await rest('GET', `/webhooks/${hook.id}`);
    expect(one.body.data).toEqual({
      id: hook.id,
      url: hook.url,
      active: true,
      filters: { severity: null, issueType: null, vendor: null, llmSpecific: null },
      deactivatedReason: null,
      consecutiveFailures: 0,
      previousSecretExpiresAt: null,
      watchedComponents: 0,
      createdAt: expect.stringMatching(/Z$/),
    });
    for (const [method, path] of [
      ['GET', `/webhooks/${theirs.id}`],
      ['DELETE', `/webhooks/${theirs.id}`],
      ['POST', `/webhooks/${theirs.id}/ping`],
      ['POST', `/webhooks/${theirs.id}/rotate-secret`],
      ['GET', `/webhooks/${theirs.id}/deliveries`],
      ['GET', '/webhooks/not-a-uuid'],
    ] as const) {
      expect(await rest(method, path)).toEqual({ status: 404, body: { error: { message: 'Webhook not found', status: 404 } } });
    }

    const ping = await rest('POST', `/webhooks/${hook.id}/ping`);
    expect(ping.status).toBe(202);
    expect(ping.body.data).toMatchObject({ kind: 'ping', status: 'pending', eventId: null, attempts: [] });
    // Pretend the worker delivered it, so there is something to redeliver.
    await t.db.prisma.webhookDelivery.update({ where: { id: ping.body.data.id }, data: { status: 'succeeded', attempts: 1, completedAt: new Date() } });
    await t.db.prisma.deliveryAttempt.create({ data: { deliveryId: ping.body.data.id, statusCode: 204, durationMs: 12 } });

    const deliveries = await rest('GET', `/webhooks/${hook.id}/deliveries?limit=5`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.meta).toEqual({ total: 1, limit: 5, offset: 0 });
    expect(deliveries.body.data[0]).toMatchObject({
      id: ping.body.data.id,
      status: 'succeeded',
      nextAttemptAt: null,
      attempts: [{ statusCode: 204, error: null, durationMs: 12 }],
    });
    expect((await rest('GET', `/webhooks/${hook.id}/deliveries?status=lost`)).body).toEqual({
      error: { message: 'status must be one of: pending, delivering, succeeded, failed, dead', status: 400 },
    });
    expect((await rest('GET', `/webhooks/${hook.id}/deliveries?limit=abc`)).status).toBe(400);

    const again = await rest('POST', `/webhooks/${hook.id}/deliveries/${ping.body.data.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ id: ping.body.data.id, status: 'pending', completedAt: null });
    expect((await rest('POST', `/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`)).status).toBe(404);
    expect((await rest('POST', `/webhooks/${theirs.id}/deliveries/${ping.body.data.id}/redeliver`)).status).toBe(404);

    const rotated = await rest('POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    // The old secret signs too for the default overlap of a day.
    const overlapEnds = Date.parse((await rest('GET', `/webhooks/${hook.id}`)).body.data.previousSecretExpiresAt);
    expect(overlapEnds - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(overlapEnds - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    expect(await rest('DELETE', `/webhooks/${hook.id}`)).toEqual({ status: 200, body: { data: { id: hook.id } } });
    expect((await rest('GET', `/webhooks/${hook.id}`)).status).toBe(404);
    expect((await rest('GET', `/webhooks/${theirs.id}`, otherKey)).status).toBe(200);
  });
});

describe('text the database cannot store', () => {
  // PostgreSQL refuses NUL in text and jsonb and a lone surrogate in jsonb: each was a 500 there.
  const cases: [string, Record<string, unknown>, string][] = [
    ['a lone surrogate in stack.packages', { stack: { packages: ['vllm@0.5.0', 'gradio@\ud800'] } }, 'stack.packages[1] must be valid Unicode text'],
    ['a lone surrogate in filters.vendor', { filters: { vendor: 'Open\udfffAI' } }, 'filters.vendor must be valid Unicode text'],
    ['a NUL in filters.vendor', { filters: { vendor: 'a\u0000b' } }, 'filters.vendor must not contain NUL characters'],
    ['a lone surrogate in the url', { url: 'https://93.184.216.34/\ud800' }, 'url must be valid Unicode text'],
    [
      'a lone surrogate inside an SBOM',
      { stack: { sbom: { bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: '\ud800', purl: 'pkg:pypi/x@1' }] } } },
      'stack.sbom.components[0].name must be valid Unicode text',
    ],
  ];

  it.each(cases)('%s is a 400 naming the field over REST and GraphQL, and changes nothing', async (_label, fields, message) => {
    const before = await t.db.prisma.webhook.count();
    const rest = await registerWebhookRest(t, { url: publicUrl, ...fields });
    expect(rest).toEqual({
      status: 400,
      body: { error: { message: expect.stringMatching(new RegExp(`^${message.replace(/[.[\]]/g, '\\$&')}`)), status: 400 } },
    });
    const graphql = await t.graphql(
      'mutation ($url: String!, $filters: WebhookFiltersInput, $stack: WebhookStackInput) { createWebhook(url: $url, filters: $filters, stack: $stack) { data { id } } }',
      { url: publicUrl, ...fields },
      bearer(),
    );
    expect(graphql.body.errors?.[0]).toMatchObject({ message: rest.body.error.message, extensions: { code: 'BAD_REQUEST' } });
    // The same over PATCH, on a webhook that exists.
    const hook = (await registerWebhookRest(t, { url: publicUrl })).body.data.id as string;
    const res = await t.fetch(`/api/v1/webhooks/${hook}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: JSON.stringify(fields),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { error: { message: rest.body.error.message, status: 400 } } });
    expect(await t.db.prisma.webhook.count()).toBe(before + 1);
    await t.db.prisma.webhook.delete({ where: { id: hook } });
  });
});

describe('keys CLI', () => {
  it('creates, lists and revokes keys; only the hash is stored', { timeout: 360_000 }, async () => {
    // The CLI is its own process, so it needs a database another process can open.
    const dataDir = await mkdtemp(join(tmpdir(), 'secwire-keys-'));
    const env = {
      LOG_LEVEL: 'silent',
      SEED_SAMPLE_DATA: 'false',
      DATA_DIR: dataDir,
      DATABASE_URL: t.db.kind === 'postgres' ? (t.db as TestDatabase).url! : '',
    };
    const cli = async (...args: string[]) => {
      const result = await runCli(env, ['keys', ...args]);
      expect(result.code, result.stderr).toBe(0);
      return result;
    };
    try {
      const created = await cli('create', '--name', 'ci robot');
      const key = /key: (swk_\S+)/.exec(created.stdout)![1]!;
      const id = /created key ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
      expect((await cli('list')).stdout).toMatch(new RegExp(`${id}\\s+active .* never used\\s+ci robot`));
      expect((await cli('revoke', id)).stdout).toContain(`revoked key ${id}`);

      const db = testDatabaseUrl ? t.db : await openDatabase({ kind: 'pglite', dataDir });
      try {
        const row = await db.prisma.apiKey.findUniqueOrThrow({ where: { id } });
        expect(row).toMatchObject({ name: 'ci robot', keyHash: sha256Hex(key), revoked: true, scopes: ['webhooks'] });
      } finally {
        if (!testDatabaseUrl) await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
