// The rate limit through HTTP: the budget, the refusal on each surface, the headers, client
// identity (in-process, X-Forwarded-For, real sockets over IPv4 and IPv6, bearer keys), and the
// in-memory store's rolling window and eviction. Redis is covered in rate-limit-redis.test.ts.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/keys/bearer.js';
import { addressKey, forwardedAddress, proxyTrust } from '../../src/http/client-identity.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { createHttpServer } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { manualClock } from '../helpers/recording-log.js';

const statsQuery = JSON.stringify({ query: '{ stats { data { totalIssues } } }' });
const scanField = 'scan(packages: ["torch"]) { meta { total } }';
const scanQuery = `{ ${scanField} }`;
const gql = (t: TestApp, headers: Record<string, string> = {}, query?: string) =>
  t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: query ? JSON.stringify({ query }) : statsQuery });

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

/** An app on the shared database with its own in-memory store and clock. */
async function limitedApp(limit: number, extra: Parameters<typeof createTestApp>[0] = {}) {
  const clock = manualClock();
  const store = new MemoryRateLimitStore(clock);
  const t = await createTestApp({ rateLimitPerMinute: limit, ...extra }, db, { rateLimitStore: store });
  return { t, clock, store };
}

describe('the budget', () => {
  it('admits 60 requests a minute, refuses the 61st on GraphQL and REST, and admits again a minute later', async () => {
    const { t, clock } = await limitedApp(60);
    for (let i = 1; i <= 60; i++) {
      const res = await (i % 2 ? gql(t) : t.fetch('/api/v1/issues'));
      expect(res.status, `request ${i}`).toBe(200);
      // The first request (at 0 s) leaves the window first.
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${60 - i};t=${Math.ceil((60_000 - (i - 1) * 990) / 1000)}`);
      await res.arrayBuffer();
      clock.advance(990);
    }

    const graphql = await gql(t);
    expect(graphql.status).toBe(429);
    expect(await graphql.json()).toEqual({
      errors: [{ message: 'Rate limit exceeded: maximum of 60 requests per minute', extensions: { code: 'RATE_LIMITED' } }],
    });
    // 59.4 s in, the first request leaves the window in 0.6 s: rounded up to 1 s.
    expect(graphql.headers.get('retry-after')).toBe('1');
    expect(graphql.headers.get('ratelimit')).toBe('"default";r=0;t=1');
    expect(graphql.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');

    for (const path of ['/api/v1/issues', '/api/v1/stats', '/api/v1/does-not-exist']) {
      const rest = await t.fetch(path);
      expect(rest.status, path).toBe(429);
      expect(rest.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await rest.json()).toEqual({ error: { message: 'Rate limit exceeded: maximum of 60 requests per minute', status: 429 } });
      expect(rest.headers.get('retry-after')).toBe('1');
    }
    // An export counts as ten requests: it waits until ten have left the window (the tenth, sent 8.9 s in).
    const exported = await t.fetch('/api/issues/export');
    expect(await exported.json()).toEqual({
      error: { message: 'Rate limit exceeded: maximum of 60 requests per minute; this request counts as 10', status: 429 },
    });
    expect(exported.headers.get('retry-after')).toBe('10');

    clock.advance(60_000);
    const next = await gql(t);
    expect(next.status).toBe(200);
    expect((await next.json()).data.stats.data.totalIssues).toBe(0);
    expect(next.headers.get('ratelimit')).toBe('"default";r=59;t=60');
  });

  it('is a rolling minute, not a fixed one', async () => {
    const { t, clock } = await limitedApp(3);
    for (let i = 0; i < 2; i++) expect((await gql(t)).status).toBe(200);
    clock.advance(30_000);
    expect((await gql(t)).status).toBe(200);
    const refused = await gql(t);
    expect(refused.status).toBe(429);
    // The first two leave the window 30 s from now.
    expect(refused.headers.get('retry-after')).toBe('30');
    clock.advance(30_000);
    expect((await gql(t)).status).toBe(200); // two slots freed
    expect((await gql(t)).status).toBe(200);
    expect((await gql(t)).status).toBe(429); // the request at 30 s is still inside
  });

  it('does not count refused requests, so hammering does not extend the wait', async () => {
    const { t, clock } = await limitedApp(2);
    await gql(t);
    await gql(t);
    for (let i = 0; i < 20; i++) expect((await gql(t)).status).toBe(429);
    clock.advance(60_000);
    expect((await gql(t)).status).toBe(200);
  });

  it('names the configured maximum', async () => {
    const { t } = await limitedApp(5);
    for (let i = 0; i < 5; i++) await gql(t);
    const res = await t.fetch('/api/v1/issues');
    expect(await res.json()).toEqual({ error: { message: 'Rate limit exceeded: maximum of 5 requests per minute', status: 429 } });
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
  });

  it('weighs each request by its cost: exports 10, a scan 5, STIX and TAXII pages 1 per default page asked for', async () => {
    const { t } = await limitedApp(60);
    const spent = async (path: string, init?: RequestInit) => {
      const res = await t.fetch(path, init);
      expect(res.status, path).not.toBe(429);
      await res.arrayBuffer();
      return Number(/;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
    };
    expect(await spent('/api/v1/issues')).toBe(59);
    expect(await spent('/api/v1/issues/stix')).toBe(58);
    expect(await spent('/api/v1/issues/stix?limit=100')).toBe(56);
    expect(await spent('/api/v1/issues/stix?limit=5000')).toBe(54); // served as 100
    expect(await spent('/taxii2/api/collections/issues/objects/?limit=1000')).toBe(44);
    expect(await spent('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"packages":["torch"]}' })).toBe(39);
    expect(await spent('/api/v1/osv/ecosystems.txt')).toBe(29);
    expect(await spent('/api/issues/export')).toBe(19);
    expect(await spent('/api/v1/osv/all.zip')).toBe(9);
    expect(await spent('/api/v1/stats')).toBe(8);
  });

  it('weighs a GraphQL operation by its root fields, from the same table: a scan 5, a STIX bundle 1 per default page, several fields added up', async () => {
    const { t } = await limitedApp(60);
    const spent = async (query: string, variables?: Record<string, unknown>) => {
      const res = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      expect(res.status, query).toBe(200);
      expect((await res.json()).errors, query).toBeUndefined();
      return Number(/;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
    };
    expect(await spent(scanQuery)).toBe(55);
    expect(await spent('{ stixBundle }')).toBe(54);
    expect(await spent('{ stixBundle(limit: 100) }')).toBe(52);
    expect(await spent('query ($n: Int) { stixBundle(limit: $n) }', { n: 5000 })).toBe(50); // served as 100
    // 5 + 2 + 1, through a fragment and an alias.
    expect(await spent(`{ ...costly totals: stats { data { totalIssues } } } fragment costly on Query { ${scanField} stixBundle(limit: 51) }`)).toBe(42);
    expect(
      await spent('query ($skip: Boolean!) { scan(packages: ["torch"]) @skip(if: $skip) { meta { total } } stats { data { totalIssues } } }', { skip: true }),
    ).toBe(41);
    // Introspection and __typename cost nothing beside the request's own unit.
    expect(await spent('{ __schema { queryType { name } } __typename }')).toBe(40);
    // REST executes through the same hook; its path priced it once.
    const rest = await t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"packages":["torch"]}' });
    await rest.arrayBuffer();
    expect(rest.headers.get('ratelimit')).toMatch(/;r=35;/);
  });

  it('counts a GraphQL scan as 5: the 13th in a minute is refused, and one the budget cannot cover does no work', async () => {
    const { t } = await limitedApp(60);
    const scan = () => gql(t, {}, scanQuery);
    for (let i = 1; i <= 11; i++) {
      const res = await scan();
      expect(res.status, `scan ${i}`).toBe(200);
      expect((await res.json()).data.scan.meta.total).toBe(0);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${60 - 5 * i};t=60`);
    }
    expect((await gql(t)).headers.get('ratelimit')).toBe('"default";r=4;t=60');
    // Admitted at the door (one unit), refused once read: four more do not fit. Nothing executed (no data).
    const refused = await scan();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      errors: [{ message: 'Rate limit exceeded: maximum of 60 requests per minute; this request counts as 5', extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('ratelimit')).toBe('"default";r=3;t=60');
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');

    const { t: fresh } = await limitedApp(60);
    for (let i = 1; i <= 12; i++) expect((await gql(fresh, {}, scanQuery)).status).toBe(200);
    const thirteenth = await gql(fresh, {}, scanQuery);
    expect(thirteenth.status).toBe(429);
    expect((await thirteenth.json()).errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('refuses a costly request the remaining budget cannot cover, while cheap ones still pass, and names the wait for its whole cost', async () => {
    const { t, clock } = await limitedApp(25);
    // Read to the end: an export still downloading holds one of the client's two export slots.
    const exported = async () => {
      const res = await t.fetch('/api/issues/export');
      await res.arrayBuffer();
      return res.headers.get('ratelimit');
    };
    expect(await exported()).toBe('"default";r=15;t=60');
    clock.advance(10_000);
    expect(await exported()).toBe('"default";r=5;t=50');
    clock.advance(10_000);
    const refused = await t.fetch('/api/issues/export');
    expect(refused.status).toBe(429);
    // Five units left; ten are needed, so five of the first export's must leave: 40 s from now.
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('ratelimit')).toBe('"default";r=5;t=40');
    // Refused requests cost nothing: a cheap read still has its five units.
    const cheap = await t.fetch('/api/v1/stats');
    expect(cheap.status).toBe(200);
    expect(cheap.headers.get('ratelimit')).toBe('"default";r=4;t=40');
    clock.advance(40_000);
    const again = await t.fetch('/api/issues/export');
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    expect(again.headers.get('ratelimit')).toBe('"default";r=4;t=10');
  });

  it('lets a request that costs more than the whole budget take the whole budget', async () => {
    const { t } = await limitedApp(5);
    const res = await t.fetch('/api/issues/export');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('ratelimit')).toBe('"default";r=0;t=60');
    expect((await t.fetch('/api/v1/stats')).status).toBe(429);
  });

  it('is off with RATE_LIMIT_PER_MINUTE=0: no refusals, no headers', async () => {
    const t = await createTestApp({ rateLimitPerMinute: 0 }, db);
    for (let i = 0; i < 70; i++) {
      const res = await gql(t);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
      await res.arrayBuffer();
    }
  });

  it('sends the headers on every limited response, errors included', async () => {
    const { t } = await limitedApp(10);
    for (const path of ['/api/v1/issues', '/api/v1/issues/not-an-id', '/api/v1/nowhere', '/api/issues/export', '/nowhere']) {
      const res = await t.fetch(path);
      expect(res.headers.get('ratelimit-policy'), path).toBe('"default";q=10;w=60');
      expect(res.headers.get('ratelimit'), path).toMatch(/^"default";r=\d;t=60$/);
    }
  });

  it('counts the GraphiQL page (9 MB) like any request', async () => {
    const { t } = await limitedApp(2);
    const page = () => t.fetch('/graphql', { headers: { accept: 'text/html' } });
    for (let i = 0; i < 2; i++) {
      const res = await page();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d;t=60$/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
      await res.arrayBuffer();
    }
    expect((await page()).status).toBe(429);
  });

  it('never limits /health and /ready, and sends them no rate-limit headers', async () => {
    const { t } = await limitedApp(1);
    await gql(t);
    expect((await gql(t)).status).toBe(429);
    for (const path of ['/health', '/ready']) {
      const res = await t.fetch(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
    }
  });

  it('exposes the headers to browsers through CORS, on admitted and refused responses', async () => {
    const { t } = await limitedApp(1);
    const origin = { origin: 'https://somewhere.example' };
    const ok = await gql(t, origin);
    const refused = await gql(t, origin);
    for (const res of [ok, refused]) {
      // Yoga answers `origin: '*'` by echoing the origin, without credentials.
      expect(res.headers.get('access-control-allow-origin')).toBe(origin.origin);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'retry-after']));
    }
    expect(refused.status).toBe(429);
    // Preflights are answered before the limit and spend nothing.
    const preflight = await t.fetch('/graphql', { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBeLessThan(300);
  });
});

describe('client identity', () => {
  it('without TRUST_PROXY, ignores X-Forwarded-For: in-process callers share one budget', async () => {
    const { t } = await limitedApp(2);
    expect((await gql(t, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
    expect((await gql(t, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
    expect((await gql(t, { 'x-forwarded-for': '198.51.100.3' })).status).toBe(429);
  });

  it('with TRUST_PROXY, keys on the right-most X-Forwarded-For entry (the one the proxy added)', async () => {
    const { t } = await limitedApp(2, { trustProxy: true });
    const from = (chain: string) => gql(t, { 'x-forwarded-for': chain });
    expect((await from('198.51.100.1')).status).toBe(200);
    // A client forging entries to the left is still itself.
    expect((await from('10.9.9.9, 198.51.100.1')).status).toBe(200);
    expect((await from('203.0.113.50, 198.51.100.1')).status).toBe(429);
    // Another client has its own budget.
    expect((await from('198.51.100.2')).status).toBe(200);
  });

  it('with TRUST_PROXY, reads the proxy entry with a port or brackets, and never falls back to a client entry', async () => {
    expect(['198.51.100.7:5123', '[2001:db8::1]:443', '[2001:db8::1]', ' 192.0.2.1 '].map(forwardedAddress)).toEqual([
      '198.51.100.7',
      '2001:db8::1',
      '2001:db8::1',
      '192.0.2.1',
    ]);
    expect(['unknown', '', '1', '0x7f.1', '198.51.100.7:port', '[nonsense]:80', '_hidden'].map(forwardedAddress)).toEqual(Array(7).fill(undefined));

    const { t } = await limitedApp(1, { trustProxy: true });
    const from = (chain: string) => gql(t, { 'x-forwarded-for': chain });
    // The proxy's entry with a port is that client, whatever it forged to the left.
    expect((await from('203.0.113.1, 198.51.100.8:1000')).status).toBe(200);
    expect((await from('203.0.113.2, 198.51.100.8:2000')).status).toBe(429);
    expect((await from('[2001:db8:1:2::1]:443')).status).toBe(200);
    expect((await from('203.0.113.3, 2001:db8:1:2::9')).status).toBe(429); // same /64
    // An entry that is no address: the connection's peer, never the forged entry to its left
    // (in-process requests have no peer and share one budget).
    expect((await from('203.0.113.66, unknown')).status).toBe(200);
    expect((await from('203.0.113.67, unknown')).status).toBe(429);
    expect((await from('203.0.113.68, not-an-address')).status).toBe(429);
  });

  it('with TRUST_PROXY naming the proxies, reads X-Forwarded-For only on connections from them', () => {
    const trusts = proxyTrust(['10.0.0.10', '192.168.4.0/24', '2001:db8:5::/48', '::1']);
    const peers = ['10.0.0.10', '::ffff:10.0.0.10', '192.168.4.200', '2001:db8:5:1::7', '::1'];
    expect(peers.map(trusts)).toEqual([true, true, true, true, true]);
    const others = ['10.0.0.11', '192.168.5.1', '2001:db8:6::1', '127.0.0.1', 'nonsense', undefined];
    expect(others.map(trusts)).toEqual(Array(6).fill(false));
    expect([proxyTrust(true)(undefined), proxyTrust(false)('10.0.0.10')]).toEqual([true, false]);
  });

  it('groups IPv6 clients by /64 and unwraps IPv4-mapped addresses', async () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('nonsense')).toBeUndefined();

    const { t } = await limitedApp(2, { trustProxy: true });
    const from = (address: string) => gql(t, { 'x-forwarded-for': address });
    expect((await from('2001:db8:1:2::1')).status).toBe(200);
    expect((await from('2001:db8:1:2:ffff::9')).status).toBe(200);
    expect((await from('2001:db8:1:2:1234::5')).status).toBe(429); // same /64
    expect((await from('2001:db8:1:3::1')).status).toBe(200); // next /64
  });

  it('gives a real bearer key its own budget, and ignores made-up keys', async () => {
    const { t } = await limitedApp(1, { trustProxy: true, webhookApiKey: 'configured-webhook-key', adminApiKey: 'configured-admin-key' });
    // Issued keys have the shape the CLI gives them (anything else is never looked up).
    const [issued, revoked, invented] = ['i', 'r', 'x'].map((c) => `swk_${c.repeat(43)}`) as [string, string, string];
    await db.prisma.apiKey.createMany({
      data: [
        { name: 'issued', keyHash: sha256Hex(issued), scopes: ['webhooks'] },
        { name: 'revoked', keyHash: sha256Hex(revoked), scopes: ['webhooks'], revoked: true },
      ],
    });
    const from = (address: string, key?: string) => gql(t, { 'x-forwarded-for': address, ...(key ? { authorization: `Bearer ${key}` } : {}) });
    expect((await from('198.51.100.7')).status).toBe(200);
    expect((await from('198.51.100.7')).status).toBe(429);
    // Same address, real keys: each its own budget.
    expect((await from('198.51.100.7', 'configured-webhook-key')).status).toBe(200);
    expect((await from('198.51.100.7', 'configured-admin-key')).status).toBe(200);
    expect((await from('198.51.100.7', issued)).status).toBe(200);
    expect((await from('198.51.100.8', issued)).status).toBe(429); // the key, wherever it comes from
    // Invented and revoked keys do not buy a fresh budget: they count as the address.
    expect((await from('198.51.100.7', 'invented-key-1')).status).toBe(429);
    expect((await from('198.51.100.7', invented)).status).toBe(429);
    expect((await from('198.51.100.7', revoked)).status).toBe(429);
    expect((await from('198.51.100.9', 'invented-key-2')).status).toBe(200);
  });

  it('over a real socket, keys on the peer address: IPv4 and IPv6 loopback are two clients', async () => {
    const { t } = await limitedApp(2);
    const server = createHttpServer(t.app);
    server.listen(0, '::');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const call = (host: string) =>
        fetch(`http://${host}:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: statsQuery });
      expect((await call('127.0.0.1')).status).toBe(200);
      expect((await call('127.0.0.1')).status).toBe(200);
      const refused = await call('127.0.0.1');
      expect(refused.status).toBe(429);
      expect((await refused.json()).errors[0].extensions.code).toBe('RATE_LIMITED');
      expect((await call('[::1]')).status).toBe(200);
      // In-process callers are yet another client.
      expect((await gql(t)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the in-memory store', () => {
  it('forgets clients that have been quiet for a whole window', async () => {
    const clock = manualClock();
    const store = new MemoryRateLimitStore(clock);
    for (let i = 0; i < 1000; i++) await store.hit(`ip:client-${i}`, 60, 60_000);
    expect(store.size).toBe(1000);
    clock.advance(30_000);
    await store.hit('ip:client-0', 60, 60_000);
    expect(store.size).toBe(1000);
    clock.advance(30_000);
    // A minute after the first hits: the next hit sweeps everyone but client-0 (hit 30 s ago).
    await store.hit('ip:late', 60, 60_000);
    expect(store.size).toBe(2);
    const hit = await store.hit('ip:client-0', 60, 60_000);
    expect(hit.earlier).toHaveLength(1);
  });
});
