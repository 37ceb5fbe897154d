// Response-cache hits answered before Yoga (src/http/early-reply.ts) give, over a real socket, the
// status, headers and bytes Yoga's own pipeline gives for the same request (both paths add the
// shared headers with one finish(), test/edge/finish.test.ts): a miss and a hit look
// alike, 304s, HEAD, encodings and CORS included; a hit counts against the rate limit and is refused
// over it; routes that need a key and no-cache requests never come from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/server/app.js';
import { createHttpServer } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { earlyServer, listen, send, type SocketAnswer as Answer } from '../helpers/socket-answer.js';
import { adminHeaders, adminKey, clonedAdvisories } from '../helpers/samples.js';

/** What must be the same for two answers to one request: all but the date and the budget left (each request spends one). */
function comparable({ status, headers, body }: Answer) {
  const { date: _date, ratelimit, ...rest } = headers;
  return { status, headers: { ...rest, ratelimit: ratelimit?.replace(/r=\d+;t=\d+/, 'r=?;t=?') }, body: body.toString('base64') };
}

/** A server that answers hits before Yoga and counts them, and one that hands everything to Yoga. */
async function servers(app: App) {
  const { server: early, hits } = await earlyServer(app);
  const yogaOnly = await listen(createHttpServer((req, res) => app(req, res)));
  const close = () => {
    for (const server of [early, yogaOnly]) {
      server.closeAllConnections();
      server.close();
    }
  };
  return { early, yogaOnly, hits, close };
}

async function ingest(t: TestApp, records: unknown): Promise<void> {
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify(records),
  });
  expect(res.status).toBe(200);
}

/** An app with these advisories behind both servers, for one describe block. */
function started(rateLimitPerMinute: number, advisories: unknown) {
  const state = {} as { t: TestApp; s: Awaited<ReturnType<typeof servers>> };
  beforeAll(async () => {
    state.t = await createTestApp({ adminApiKey: adminKey, rateLimitPerMinute });
    await ingest(state.t, advisories);
    state.s = await servers(state.t.app);
  });
  afterAll(async () => {
    state.s?.close();
    await state.t?.close();
  });
  return state;
}

describe('cached replies before Yoga', () => {
  const state = started(1000, clonedAdvisories(30, 'cafe'));

  it('answer every variant of a request as Yoga does: encodings, CORS, 304, HEAD, request ids', async () => {
    const { s } = state;
    const { data } = JSON.parse((await send(s.yogaOnly, '/api/v1/issues?limit=1')).body.toString()) as { data: { id: string }[] };
    const paths = ['/api/v1/issues?limit=5', `/api/v1/issues/${data[0]!.id}`, '/api/v1/stats', '/api/v1/digests', '/api/v1/openapi.json', '/api/v1/docs'];
    for (const path of paths) {
      const first = await send(s.yogaOnly, path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.etag!;
      const variants: [string, Record<string, string>][] = [
        ['GET', {}],
        ['GET', { 'x-request-id': 'caller-chosen-id' }],
        ['GET', { origin: 'https://example.com' }],
        ['GET', { origin: 'https://example.com', 'access-control-request-headers': 'x-custom' }],
        ['GET', { 'accept-encoding': 'br' }],
        ['GET', { 'accept-encoding': 'gzip, deflate' }],
        ['GET', { 'accept-encoding': 'br;q=0, gzip' }],
        ['GET', { 'if-none-match': etag }],
        ['GET', { 'if-none-match': `"other", ${etag}`, origin: 'https://example.com' }],
        ['HEAD', {}],
        ['HEAD', { 'accept-encoding': 'br' }],
        ['HEAD', { 'if-none-match': etag }],
      ];
      for (const [method, headers] of variants) {
        const label = `${method} ${path} ${JSON.stringify(headers)}`;
        const hitsBefore = s.hits();
        const early = await send(s.early, path, headers, method);
        expect(s.hits(), label).toBe(hitsBefore + 1);
        const yoga = await send(s.yogaOnly, path, headers, method);
        if (!headers['x-request-id']) {
          expect(early.headers['x-request-id'], label).toMatch(/^[\w-]{36}$/);
          delete early.headers['x-request-id'];
          delete yoga.headers['x-request-id'];
        }
        expect(comparable(early), label).toEqual(comparable(yoga));
      }
    }
  });

  it('answer a hit as the miss before it was answered', async () => {
    const { s } = state;
    const variants: [string, Record<string, string>][] = [
      ['/api/v1/issues?limit=4&severity=high', {}],
      ['/api/v1/issues?limit=6&severity=high', { 'accept-encoding': 'br', origin: 'https://example.org' }],
    ];
    for (const [path, headers] of variants) {
      const before = s.hits();
      const miss = await send(s.early, path, headers);
      expect(s.hits()).toBe(before);
      const hit = await send(s.early, path, headers);
      expect(s.hits()).toBe(before + 1);
      expect(miss.status).toBe(200);
      delete miss.headers['x-request-id'];
      delete hit.headers['x-request-id'];
      expect(comparable(hit)).toEqual(comparable(miss));
    }
  });

  it('answer a revalidation with a bodiless 304', async () => {
    const { s } = state;
    const path = '/api/v1/stats';
    const { headers } = await send(s.early, path);
    const before = s.hits();
    const revalidated = await send(s.early, path, { 'if-none-match': headers.etag! });
    expect(s.hits()).toBe(before + 1);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(headers.etag);
    expect(revalidated.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(revalidated.body.length).toBe(0);
  });

  it('leave routes that need a key, no-cache requests and requests with a body to Yoga', async () => {
    const { s } = state;
    const before = s.hits();
    for (let i = 0; i < 2; i++) {
      expect((await send(s.early, '/api/v1/admin/sources', adminHeaders)).status).toBe(200);
      expect((await send(s.early, '/api/v1/admin/sources')).status).toBe(401);
      expect((await send(s.early, '/api/v1/admin/sources', { authorization: 'Bearer not-the-key' })).status).toBe(401);
    }
    expect(s.hits()).toBe(before);
    await send(s.early, '/api/v1/stats');
    const afterWarm = s.hits();
    const fresh = await send(s.early, '/api/v1/stats', { 'cache-control': 'no-cache' });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.etag).toBeUndefined();
    expect(s.hits()).toBe(afterWarm);
    await send(s.early, '/api/v1/stats', { 'content-type': 'application/json', 'content-length': '2' }, 'GET', '{}');
    expect(s.hits()).toBe(afterWarm);
  });
});

describe('cached replies before Yoga, against the rate limit', () => {
  const state = started(3, clonedAdvisories(3, 'cafd'));

  it('count a hit against its client, and refuse it over the limit with the 429 and headers Yoga gives', async () => {
    const { t, s } = state;
    // Stored by an in-process request, which spends another client's budget.
    expect((await t.fetch('/api/v1/stats')).status).toBe(200);
    const budgets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await send(s.early, '/api/v1/stats', { origin: 'https://example.com' });
      expect(answer.status).toBe(200);
      budgets.push(answer.headers.ratelimit!.replace(/;t=\d+$/, ''));
    }
    expect(s.hits()).toBe(3);
    expect(budgets).toEqual(['"default";r=2', '"default";r=1', '"default";r=0']);
    const refused = await send(s.early, '/api/v1/stats', { origin: 'https://example.com' });
    expect(s.hits()).toBe(3);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(refused.headers['access-control-allow-origin']).toBe('https://example.com');
    expect(JSON.parse(refused.body.toString()).error.status).toBe(429);
    // The same refusal as Yoga's own (from the same address, so the same spent budget).
    const yoga = await send(s.yogaOnly, '/api/v1/stats', { origin: 'https://example.com' });
    delete refused.headers['x-request-id'];
    delete yoga.headers['x-request-id'];
    expect(comparable(refused)).toEqual(comparable(yoga));
  });
});
