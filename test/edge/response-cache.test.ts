// The response cache of the public GET routes: ETags and 304s, never a stale answer after an
// ingest (on one instance, and across two instances of one PostgreSQL deployment), compressed
// bodies that decode to the same bytes, and per-request headers that stay with their request.
import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { COMPRESSION_THRESHOLD } from '../../src/http/response-cache.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { adminHeaders, adminKey, clonedAdvisories, loadAdvisory } from '../helpers/samples.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;

async function ingest(t: TestApp, records: unknown): Promise<void> {
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify(records),
  });
  expect(res.status).toBe(200);
}

const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('response cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ adminApiKey: adminKey, rateLimitPerMinute: 1000 });
    await ingest(t, clonedAdvisories(30, 'cace'));
  });
  afterAll(async () => t?.close());

  it('sends an ETag and answers a matching If-None-Match with a bodiless 304', async () => {
    const first = await t.fetch('/api/v1/issues?limit=5');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('vary')).toBe('Accept-Encoding');
    const body = await first.text();

    const again = await t.fetch('/api/v1/issues?limit=5');
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe(body);

    const revalidated = await t.fetch('/api/v1/issues?limit=5', { headers: { 'if-none-match': `"other", ${etag}` } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(await revalidated.text()).toBe('');
    // The strong form of the same tag matches too (weak comparison), and a miss with it is a 304 as well.
    const fresh = await t.fetch('/api/v1/issues?limit=5', { headers: { 'if-none-match': etag.slice(2), 'cache-control': 'no-cache' } });
    expect(fresh.status).toBe(200); // no-cache: computed afresh, not revalidated against the cache
    expect((await t.fetch('/api/v1/issues?limit=5', { headers: { 'if-none-match': etag.slice(2) } })).status).toBe(304);

    const other = await t.fetch('/api/v1/issues?limit=5', { headers: { 'if-none-match': '"something-else"' } });
    expect(other.status).toBe(200);
  });

  it('caches single issues, stats, digests, STIX and the OpenAPI document the same way', async () => {
    const { data } = (await (await t.fetch('/api/v1/issues?limit=1')).json()) as { data: { id: string }[] };
    for (const path of [`/api/v1/issues/${data[0]!.id}`, '/api/v1/stats', '/api/v1/digests', '/api/v1/issues/stix?limit=5', '/api/v1/openapi.json']) {
      const first = await t.fetch(path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag, path).toBeTruthy();
      const second = await t.fetch(path);
      expect(await second.text(), path).toBe(await first.text());
      expect((await t.fetch(path, { headers: { 'if-none-match': etag! } })).status, path).toBe(304);
    }
  });

  it('is never stale after an ingest', async () => {
    const before = await t.fetch('/api/v1/issues?limit=100');
    const etag = before.headers.get('etag')!;
    const { meta } = (await before.json()) as { meta: { total: number } };
    const statsBefore = ((await (await t.fetch('/api/v1/stats')).json()) as { data: { totalIssues: number } }).data;

    await ingest(t, loadAdvisory('GHSA-57fc-8q82-gfp3'));

    const after = await t.fetch('/api/v1/issues?limit=100', { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    const body = (await after.json()) as { meta: { total: number }; data: { cveId: string | null }[] };
    expect(body.meta.total).toBe(meta.total + 1);
    expect(body.data.map((i) => i.cveId)).toContain('CVE-2023-36188');
    // Stats is cached for a minute at most even when nothing changes, but an ingest ends it at once.
    expect(((await (await t.fetch('/api/v1/stats')).json()) as { data: { totalIssues: number } }).data.totalIssues).toBe(statsBefore.totalIssues + 1);
  });

  it('keeps its answers across an ingest that changes nothing (which writes no new data version)', async () => {
    const version = async () => (await t.db.prisma.$queryRaw<{ version: bigint }[]>`SELECT version FROM "DataVersion" WHERE id = 1`)[0]!.version;
    const before = await t.fetch('/api/v1/issues?limit=7');
    const etag = before.headers.get('etag')!;
    const was = await version();

    await ingest(t, loadAdvisory('GHSA-57fc-8q82-gfp3')); // stored by the test above, unchanged

    expect(await version()).toBe(was);
    expect((await t.fetch('/api/v1/issues?limit=7', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('compresses with brotli or gzip when asked, to the same bytes, and small bodies not at all', async () => {
    const path = '/api/v1/issues?limit=20';
    const identity = await bytes(await t.fetch(path));
    expect(identity.length).toBeGreaterThan(COMPRESSION_THRESHOLD);
    const etag = (await t.fetch(path)).headers.get('etag');
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['br;q=0, gzip;q=0.5', 'gzip', gunzipSync],
    ] as const) {
      // Twice: compressed on the first request, from the entry on the second.
      for (let i = 0; i < 2; i++) {
        const res = await t.fetch(path, { headers: { 'accept-encoding': accept } });
        expect(res.headers.get('content-encoding'), accept).toBe(encoding);
        expect(res.headers.get('etag')).toBe(etag);
        const body = await bytes(res);
        expect(Number(res.headers.get('content-length'))).toBe(body.length);
        expect(body.length).toBeLessThan(identity.length);
        expect(decode(body).equals(identity), accept).toBe(true);
      }
    }
    // Many at once on a fresh entry: one compression, the same bytes for all.
    const fresh = '/api/v1/issues?limit=25';
    const fromIdentity = await bytes(await t.fetch(fresh));
    const together = await Promise.all(Array.from({ length: 10 }, async () => bytes(await t.fetch(fresh, { headers: { 'accept-encoding': 'br' } }))));
    for (const body of together) expect(brotliDecompressSync(body).equals(fromIdentity)).toBe(true);

    const plain = await t.fetch(path, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect((await bytes(plain)).equals(identity)).toBe(true);

    const small = await t.fetch('/api/v1/stats', { headers: { 'accept-encoding': 'br, gzip' } });
    const smallBody = await bytes(small);
    expect(smallBody.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(smallBody.toString()).data).toHaveProperty('totalIssues');
  });

  it('keeps per-request headers with their request: request ids, rate-limit budgets; shared links once', async () => {
    const path = '/api/v1/issues?limit=2';
    const first = await t.fetch(path, { headers: { 'x-request-id': 'caller-one' } });
    const second = await t.fetch(path, { headers: { 'x-request-id': 'caller-two', origin: 'https://example.com' } });
    const third = await t.fetch(path, { headers: { 'x-request-id': 'caller-three', 'if-none-match': first.headers.get('etag')! } });
    expect(third.status).toBe(304);
    expect([first, second, third].map((r) => r.headers.get('x-request-id'))).toEqual(['caller-one', 'caller-two', 'caller-three']);
    const remaining = [first, second, third].map((r) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit')!)![1]));
    expect(remaining[1]).toBe(remaining[0]! - 1);
    expect(remaining[2]).toBe(remaining[1]! - 1);
    // The licence and paging links, exactly as on the first answer: not dropped, not doubled.
    expect(second.headers.get('link')).toBe(first.headers.get('link'));
    expect(first.headers.get('link')!.match(/rel="license"/g)).toHaveLength(1);
    expect(first.headers.get('link')!.match(/rel="next"/g)).toHaveLength(1);
    expect(second.headers.get('access-control-allow-origin')).toBe('https://example.com');
    expect(first.headers.get('access-control-allow-origin')).not.toBe('https://example.com');
    expect(second.headers.get('vary')).toBe('Origin, Accept-Encoding');
  });

  it('answers HEAD from the cache with the GET headers and no body', async () => {
    const path = '/api/v1/issues?limit=3';
    const get = await t.fetch(path);
    const head = await t.fetch(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('link')).toBe(get.headers.get('link'));
    expect(await head.text()).toBe('');
  });

  it('keeps caller-dependent routes and errors out of it', async () => {
    const missing = await t.fetch('/api/v1/issues/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    const sources = await t.fetch('/api/v1/admin/sources', { headers: adminHeaders });
    expect(sources.status).toBe(200);
    expect(sources.headers.get('etag')).toBeNull();
    expect((await t.fetch('/api/v1/admin/sources')).status).toBe(401);
  });
});

describe('a response cache at its bound', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Room for one list page of 10 but not two: each new page evicts the other.
    t = await createTestApp({ adminApiKey: adminKey, responseCacheBytes: 30_000 });
    await ingest(t, clonedAdvisories(30, 'b0b'));
  });
  afterAll(async () => t?.close());

  it('evicts the least recently used answer and answers the same afresh', async () => {
    const pages = ['/api/v1/issues?limit=10', '/api/v1/issues?limit=10&offset=10'];
    const first = await Promise.all(
      pages.map(async (p) => {
        const res = await t.fetch(p);
        return { etag: res.headers.get('etag')!, body: await res.text() };
      }),
    );
    expect(first[0]!.body.length).toBeGreaterThan(15_000);
    expect(first[0]!.body.length).toBeLessThan(30_000);
    for (const [i, path] of pages.entries()) {
      const again = await t.fetch(path, { headers: { 'if-none-match': first[i]!.etag } });
      // Evicted or not, the answer is the same: a 304 for the tag the client holds.
      expect(again.status).toBe(304);
      const full = await t.fetch(path);
      expect(await full.text()).toBe(first[i]!.body);
    }
  });
});

describe.skipIf(!testDatabaseUrl)('response cache across two instances of one PostgreSQL deployment', () => {
  let db: TestDatabase;
  let otherConnection: Database;
  let a: TestApp;
  let b: TestApp;
  const redisKeyPrefix = `secwire-test:${randomBytes(6).toString('hex')}:`;
  beforeAll(async () => {
    db = await createTestDatabase();
    // Instance B has its own connection pool, as a second process would.
    otherConnection = await openDatabase({ kind: 'postgres', url: db.url! });
    a = await createTestApp({ redisUrl, redisKeyPrefix, adminApiKey: adminKey }, db);
    b = await createTestApp({ redisUrl, redisKeyPrefix }, otherConnection as TestDatabase);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await otherConnection?.close();
    await db?.close();
  });

  it('shows an ingest through instance A at once through instance B', async () => {
    await ingest(a, clonedAdvisories(3, 'beef'));
    const paths = ['/api/v1/issues', '/api/v1/stats', '/api/v1/issues?search=langchain'];
    const before = await Promise.all(paths.map(async (p) => (await b.fetch(p)).json()));
    // Cached on B: a repeat is a 304.
    const etag = (await b.fetch(paths[0]!)).headers.get('etag')!;
    expect((await b.fetch(paths[0]!, { headers: { 'if-none-match': etag } })).status).toBe(304);

    await ingest(a, loadAdvisory('GHSA-57fc-8q82-gfp3'));

    const after = await Promise.all(paths.map(async (p) => (await b.fetch(p)).json()));
    expect(after[0].meta.total).toBe(before[0].meta.total + 1);
    expect(after[0].data.map((i: { cveId: string }) => i.cveId)).toContain('CVE-2023-36188');
    expect(after[1].data.totalIssues).toBe(before[1].data.totalIssues + 1);
    expect(after[2].meta.total).toBe(before[2].meta.total + 1);
    expect((await b.fetch(paths[0]!, { headers: { 'if-none-match': etag } })).status).toBe(200);
  });
});
