// The public REST reads answered before Yoga (the gate's directRead, src/http/early-reply.ts) give,
// over a real socket, the status, headers and bytes Yoga's own pipeline gives for the same request:
// two apps on one database, each with its own response cache, so every first request is a miss on
// both. Errors (400, 404) keep the envelope; a read counts against the rate limit and is left to
// Yoga over it; HEAD, routes with a key and other paths never come from it.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../src/http/server.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { earlyServer, listen, send, type SocketAnswer as Answer } from './helpers/socket-answer.js';
import { adminHeaders, adminKey, clonedAdvisories } from './helpers/samples.js';

/** All but the date, the request id when the server chose it, and the budget left (each request spends one). */
function comparable({ status, headers, body }: Answer, requestId: boolean) {
  const { date: _date, ratelimit, 'x-request-id': id, ...rest } = headers;
  return {
    status,
    headers: { ...rest, ratelimit: ratelimit?.replace(/r=\d+;t=\d+/, 'r=?;t=?'), ...(requestId ? { 'x-request-id': id } : {}) },
    body: body.toString('base64'),
  };
}

function started(rateLimitPerMinute: number) {
  const state = {} as { early: TestApp; yoga: TestApp; e: Awaited<ReturnType<typeof earlyServer>>; yogaOnly: Server };
  beforeAll(async () => {
    state.early = await createTestApp({ adminApiKey: adminKey, rateLimitPerMinute });
    state.yoga = await createTestApp({ adminApiKey: adminKey, rateLimitPerMinute }, state.early.db);
    const res = await state.early.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify(clonedAdvisories(30, 'cafe')),
    });
    expect(res.status).toBe(200);
    expect((await state.early.fetch('/api/v1/admin/digests', { method: 'POST', headers: adminHeaders })).status).toBeLessThan(300);
    state.e = await earlyServer(state.early.app);
    state.yogaOnly = await listen(createHttpServer((req, res) => state.yoga.app(req, res)));
  });
  afterAll(async () => {
    for (const server of [state.e?.server, state.yogaOnly]) {
      server?.closeAllConnections();
      server?.close();
    }
    await state.yoga?.close();
    await state.early?.close();
  });
  return state;
}

describe('reads before Yoga', () => {
  const state = started(1000);

  it('answer every read as Yoga does: misses, then hits, errors, links, encodings, CORS and request ids', async () => {
    const { e, yogaOnly } = state;
    const list = JSON.parse((await send(yogaOnly, '/api/v1/issues?limit=2', { 'cache-control': 'no-cache' })).body.toString());
    const id = list.data[0].id as string;
    const digests = JSON.parse((await send(yogaOnly, '/api/v1/digests', { 'cache-control': 'no-cache' })).body.toString());
    const date = digests.data[0]?.date as string | undefined;
    const paths = [
      '/api/v1/issues',
      '/api/v1/issues?limit=5&offset=5',
      '/api/v1/issues?limit=3&severity=high',
      `/api/v1/issues?limit=2&cursor=${/cursor=([\w-]+)/.exec((await send(yogaOnly, '/api/v1/issues?limit=2', { 'cache-control': 'no-cache' })).headers.link!)![1]}`,
      '/api/v1/issues?limit=many',
      '/api/v1/issues?colour=red',
      `/api/v1/issues/${id}`,
      '/api/v1/issues/not-an-id',
      '/api/v1/issues/00000000-0000-4000-8000-000000000000',
      '/api/v1/stats',
      '/api/v1/digest/latest',
      '/api/v1/digests?limit=1',
      ...(date ? [`/api/v1/digests/${date}`] : []),
      '/api/v1/digests/2001-01-01',
    ];
    // The first is a miss kept in the cache, compressed; the last a hit.
    const variants: Record<string, string>[] = [
      { 'accept-encoding': 'br', origin: 'https://example.com' },
      { 'cache-control': 'no-cache' },
      { 'x-request-id': 'caller-chosen-id', 'cache-control': 'no-cache' },
      { origin: 'https://example.com', 'cache-control': 'no-cache' },
      { authorization: `Bearer ${adminKey}`, 'cache-control': 'no-cache' },
      {},
    ];
    for (const path of paths) {
      for (const headers of variants) {
        const label = `${path} ${JSON.stringify(headers)}`;
        const before = e.reads() + e.hits();
        const early = await send(e.server, path, headers);
        expect(e.reads() + e.hits(), label).toBe(before + 1);
        const yoga = await send(yogaOnly, path, headers);
        if (!headers['x-request-id']) expect(early.headers['x-request-id'], label).toMatch(/^[\w-]{36}$/);
        expect(comparable(early, !!headers['x-request-id']), label).toEqual(comparable(yoga, !!headers['x-request-id']));
      }
    }
  });

  it('leave HEAD, routes with a key and other paths to Yoga', async () => {
    const { e } = state;
    const before = e.reads();
    expect((await send(e.server, '/api/v1/issues?limit=1', { 'cache-control': 'no-cache' }, 'HEAD')).status).toBe(200);
    expect((await send(e.server, '/api/v1/admin/sources', adminHeaders)).status).toBe(200);
    expect((await send(e.server, '/api/v1/admin/sources')).status).toBe(401);
    expect((await send(e.server, '/api/v1/issues/stix?limit=1')).status).toBe(200);
    expect((await send(e.server, '/api/v1/openapi.json', { 'cache-control': 'no-cache' })).status).toBe(200);
    expect((await send(e.server, '/api/v1/nowhere')).status).toBe(404);
    expect((await send(e.server, '/health')).status).toBe(200);
    expect(e.reads()).toBe(before);
  });
});

describe('reads before Yoga, against the rate limit', () => {
  const state = started(3);

  it('count a read against its client, and leave it to Yoga over the limit', async () => {
    const { e, yogaOnly } = state;
    const budgets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await send(e.server, '/api/v1/stats', { 'cache-control': 'no-cache' });
      expect(answer.status).toBe(200);
      budgets.push(answer.headers.ratelimit!.replace(/;t=\d+$/, ''));
    }
    expect(e.reads()).toBe(3);
    expect(budgets).toEqual(['"default";r=2', '"default";r=1', '"default";r=0']);
    const refused = await send(e.server, '/api/v1/stats', { 'cache-control': 'no-cache', origin: 'https://example.com' });
    expect(e.reads()).toBe(3);
    expect(refused.status).toBe(429);
    for (let i = 0; i < 3; i++) await send(yogaOnly, '/api/v1/stats', { 'cache-control': 'no-cache' });
    const yoga = await send(yogaOnly, '/api/v1/stats', { 'cache-control': 'no-cache', origin: 'https://example.com' });
    expect(comparable(refused, false)).toEqual(comparable(yoga, false));
  });
});
