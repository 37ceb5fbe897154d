// Watched stacks are priced like the scan they are (issue 40, finding 1): registering or changing a
// webhook with a stack, its findings, its VEX and its anonymous Atom feed each cost 1 unit per 200
// components (a 1,000-component stack costs a scan's 5), a VEX page 1 more per 100 vulnerabilities
// asked for, counted before the matching runs; over the budget the answer is the rate limit's own
// 429 on each surface. The VEX is paged (limit/offset, like the findings), with where the page lies
// in its metadata.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/server.js';
import { keptStackAnswers } from '../../src/stacks/findings.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { manualClock } from '../helpers/recording-log.js';
import { adminHeaders, adminKey, loadAdvisories } from '../helpers/samples.js';
import { bearer, webhookKey } from '../helpers/webhooks.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const seeder = await createTestApp({ adminApiKey: adminKey }, db);
  const res = await seeder.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify({ items: loadAdvisories().filter((a) => !a.withdrawn) }),
  });
  expect(res.status).toBe(200);
  await seeder.close();
});
afterAll(async () => db?.close());

/** An app with a budget of 60 a minute on a clock that does not move. */
async function limitedApp(): Promise<TestApp> {
  return createTestApp({ rateLimitPerMinute: 60, webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, adminApiKey: adminKey }, db, {
    rateLimitStore: new MemoryRateLimitStore(manualClock()),
  });
}

const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
/** A 1,000-component stack: as many versions of one package as the scan takes. */
const bigStack = Array.from({ length: 1000 }, (_, i) => `langchain@0.0.${i}`);
const json = { 'content-type': 'application/json', ...bearer() };

async function register(t: TestApp, packages: string[]) {
  const res = await t.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ url: 'https://127.0.0.1:9/hook', stack: { packages } }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { id: (await res.json()).data.id as string, remaining: remaining(res) };
}

describe('stack routes cost by the stack', () => {
  it('a 1,000-component stack costs what a scan of 1,000 packages does on every route, and a small one 1', async () => {
    const t = await limitedApp();
    const big = await register(t, bigStack);
    expect(big.remaining).toBe(55);
    const small = await register(t, ['langchain@0.0.300']);
    expect(small.remaining).toBe(54);

    const costs: Record<string, number> = {};
    let left = small.remaining;
    const spend = async (name: string, res: Response) => {
      expect(res.status, `${name}: ${await res.clone().text()}`).toBeLessThan(300);
      costs[name] = left - remaining(res);
      left = remaining(res);
      await res.arrayBuffer();
    };
    await spend('findings', await t.fetch(`/api/v1/webhooks/${big.id}/findings`, { headers: bearer() }));
    await spend('small findings', await t.fetch(`/api/v1/webhooks/${small.id}/findings`, { headers: bearer() }));
    await spend('vex', await t.fetch(`/api/v1/webhooks/${big.id}/findings/vex`, { headers: bearer() }));
    await spend('vex of 1000', await t.fetch(`/api/v1/webhooks/${big.id}/findings/vex?limit=1000`, { headers: bearer() }));
    await spend(
      'graphql findings',
      await t.fetch('/graphql', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ query: `{ webhookFindings(webhookId: "${big.id}") { meta { total } } }` }),
      }),
    );
    await spend(
      'patch',
      await t.fetch(`/api/v1/webhooks/${big.id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ stack: { packages: bigStack.slice(0, 400) } }) }),
    );
    expect(costs).toEqual({ findings: 5, 'small findings': 1, vex: 5, 'vex of 1000': 14, 'graphql findings': 5, patch: 2 });
    await t.close();
  });

  it('the anonymous feed costs its address by the stack', async () => {
    const t = await limitedApp();
    const big = await register(t, bigStack);
    const issued = await t.fetch(`/api/v1/webhooks/${big.id}/feed`, { method: 'POST', headers: bearer() });
    const { path } = (await issued.json()).data;
    // In-process requests without a key share one budget, untouched so far.
    const feed = await t.fetch(path);
    expect(feed.status).toBe(200);
    expect(remaining(feed)).toBe(55);
    await t.close();
  });

  it('over the budget a stack read is the rate limit 429 on REST, GraphQL and the feed, and nothing is matched', async () => {
    const t = await limitedApp();
    const big = await register(t, bigStack);
    const issued = await t.fetch(`/api/v1/webhooks/${big.id}/feed`, { method: 'POST', headers: bearer() });
    const { path } = (await issued.json()).data;
    // Leave the key 3 units: a 5-unit read no longer fits, a 1-unit one does.
    for (let left = 54; left > 3; left--) expect((await t.fetch('/api/v1/stats', { headers: bearer() })).status).toBe(200);

    const rest = await t.fetch(`/api/v1/webhooks/${big.id}/findings/vex`, { headers: bearer() });
    expect(rest.status).toBe(429);
    expect(await rest.json()).toEqual({
      error: { message: 'Rate limit exceeded: maximum of 60 requests per minute; this request counts as 5', status: 429 },
    });
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rest.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');

    const graphql = await t.fetch('/graphql', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ query: `{ webhookFindingsVex(webhookId: "${big.id}") }` }),
    });
    expect(graphql.status).toBe(429);
    const body = await graphql.json();
    expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(/^Rate limit exceeded/), extensions: { code: 'RATE_LIMITED' } });
    expect(graphql.headers.get('retry-after')).not.toBeNull();

    // Only each request's first unit was counted (as for a GraphQL operation over the budget): 3 - 2 - 1.
    const stats = await t.fetch('/api/v1/stats', { headers: bearer() });
    expect(remaining(stats)).toBe(0);

    // The feed's address: spend down to 2, then the 5-unit feed is refused with the envelope.
    for (let i = 0; i < 58; i++) await (await t.fetch('/api/v1/stats')).arrayBuffer();
    const feed = await t.fetch(path);
    expect(feed.status).toBe(429);
    expect((await feed.json()).error).toEqual({ message: 'Rate limit exceeded: maximum of 60 requests per minute; this request counts as 5', status: 429 });
    expect(feed.headers.get('retry-after')).not.toBeNull();
    await t.close();
  });

  it('over a socket too, the 429 sends each rate-limit header once', async () => {
    const t = await limitedApp();
    const server = createHttpServer(t.app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const big = await register(t, bigStack);
      // 55 left: three pages of 1,000 (14 each) fit, the fourth does not.
      const statuses: number[] = [];
      let refused: Response | undefined;
      while (!refused) {
        const res = await fetch(`${base}/api/v1/webhooks/${big.id}/findings/vex?limit=1000`, { headers: bearer() });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status === 429) refused = res;
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=12;t=\d+$/);
      expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');
    } finally {
      server.close();
      await t.close();
    }
  });
});

describe('the VEX is paged', () => {
  it('answers limit vulnerabilities from offset, says where the page lies, and the pages make the whole', async () => {
    const t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true }, db);
    const hook = await register(t, bigStack);
    const whole = await t.fetch(`/api/v1/webhooks/${hook.id}/findings?limit=100`, { headers: bearer() });
    const findings = (await whole.json()) as { data: { id: string }[]; meta: { total: number } };
    const total = findings.meta.total;
    expect(total).toBeGreaterThan(2);

    const page = async (query: string) => {
      const res = await t.fetch(`/api/v1/webhooks/${hook.id}/findings/vex${query}`, { headers: bearer() });
      expect(res.status).toBe(200);
      return (await res.json()) as { metadata: { properties: { name: string; value: string }[] }; vulnerabilities: { 'bom-ref': string }[] };
    };
    const first = await page('?limit=2');
    expect(first.vulnerabilities).toHaveLength(2);
    expect(first.metadata.properties).toEqual([
      { name: 'secwire:total', value: String(total) },
      { name: 'secwire:limit', value: '2' },
      { name: 'secwire:offset', value: '0' },
    ]);
    const pages = [first];
    for (let offset = 2; offset < total; offset += 2) pages.push(await page(`?limit=2&offset=${offset}`));
    expect(pages.flatMap((p) => p.vulnerabilities.map((v) => v['bom-ref']))).toEqual(findings.data.map((m) => `secwire-issue-${m.id}`));
    // By default one page of 100; at most 1000; a bad limit is the list routes' 400.
    expect((await page('')).metadata.properties[1]).toEqual({ name: 'secwire:limit', value: '100' });
    expect((await page('?limit=5000')).metadata.properties[1]).toEqual({ name: 'secwire:limit', value: '1000' });
    const bad = await t.fetch(`/api/v1/webhooks/${hook.id}/findings/vex?limit=0`, { headers: bearer() });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/limit/);
    await t.close();
  });
});

describe('kept stack answers', () => {
  it('are those of the current data version only: a change to what is served drops the others', async () => {
    const t = await limitedApp();
    const hooks = [await register(t, ['langchain@0.0.300']), await register(t, ['transformers@4.0.0'])];
    const read = async (id: string) => {
      const res = await t.fetch(`/api/v1/webhooks/${id}/findings`, { headers: bearer() });
      expect(res.status).toBe(200);
      return (await res.json()).data as { id: string }[];
    };
    for (const hook of hooks) await read(hook.id);
    expect(keptStackAnswers(t.db)).toBeGreaterThanOrEqual(2);

    const [advisory] = loadAdvisories().filter((a) => !a.withdrawn);
    const changed = await t.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify({ items: [{ ...advisory, id: 'GHSA-2222-3333-4444', aliases: [], modified: new Date().toISOString() }] }),
    });
    expect(changed.status).toBe(200);
    const before = await read(hooks[0]!.id);
    expect(keptStackAnswers(t.db)).toBe(1);
    expect(await read(hooks[0]!.id)).toEqual(before);
    expect(keptStackAnswers(t.db)).toBe(1);
    await t.close();
  });
});
