// Link headers (RFC 8288) on the list routes and the opaque cursor: a client following rel="next"
// while issues are inserted before and after its position sees every original issue exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';

let t: TestApp;
const hour = 3600_000;
const base = Date.UTC(2025, 5, 1);

beforeAll(async () => {
  t = await createTestApp();
  await t.db.prisma.issue.createMany({
    data: Array.from({ length: 25 }, (_, i) => makeIssue({ title: `Issue ${i}`, publishedAt: new Date(base + i * hour) })),
  });
});
afterAll(async () => t?.close());

/** rel -> target of every Link header value. */
function links(res: Response): Record<string, string> {
  const header = res.headers.get('link') ?? '';
  return Object.fromEntries([...header.matchAll(/<([^>]+)>;\s*rel="([^"]+)"/g)].map((m) => [m[2]!, m[1]!]));
}

describe('Link headers', () => {
  it('the first page links to the next one by cursor, beside the licence link', async () => {
    const res = await t.fetch('/api/v1/issues?limit=10&severity=medium');
    const rels = links(res);
    expect(rels.license).toBe('https://creativecommons.org/licenses/by/4.0/');
    expect(rels.next).toMatch(/^\/api\/v1\/issues\?limit=10&severity=medium&cursor=[\w-]+$/);
    expect(rels.prev).toBeUndefined();
    const body = await res.json();
    expect(body.meta).toEqual({ total: 25, limit: 10, offset: 0 });
  });

  it('an offset page links back by offset; the last page has no next', async () => {
    const rels = links(await t.fetch('/api/v1/issues?limit=10&offset=20'));
    expect(rels.prev).toBe('/api/v1/issues?limit=10&offset=10');
    expect(rels.next).toBeUndefined();
  });

  it('following next while issues are inserted on both sides sees each original issue once, in order', async () => {
    const original = (await (await t.fetch('/api/v1/issues?limit=100')).json()).data.map((i: { id: string }) => i.id);
    const seen: string[] = [];
    let next: string | undefined = '/api/v1/issues?limit=7';
    let page = 0;
    while (next) {
      const res: Response = await t.fetch(next);
      expect(res.status).toBe(200);
      seen.push(...(await res.json()).data.map((i: { id: string }) => i.id));
      next = links(res).next;
      if (++page <= 2) {
        // One newer than everything (before the walk's position) and one older (still ahead of it).
        await t.db.prisma.issue.createMany({
          data: [
            makeIssue({ title: `Newer ${page}`, publishedAt: new Date(base + (100 + page) * hour) }),
            makeIssue({ title: `Older ${page}`, publishedAt: new Date(base - (100 + page) * hour) }),
          ],
        });
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => original.includes(id))).toEqual(original);
    expect(seen).toHaveLength(original.length + 2); // the two older ones, met later in the walk
  });

  it('digests link next and prev by offset', async () => {
    for (const date of ['2025-06-01', '2025-06-02', '2025-06-03']) {
      await t.db.prisma.digest.create({ data: { date, content: `# ${date}`, issueCount: 1 } });
    }
    const rels = links(await t.fetch('/api/v1/digests?limit=1&offset=1'));
    expect(rels.next).toBe('/api/v1/digests?limit=1&offset=2');
    expect(rels.prev).toBe('/api/v1/digests?limit=1&offset=0');
  });

  it('refuses a made-up cursor, and a cursor with an offset, with 400 envelopes', async () => {
    for (const [query, message] of [
      ['cursor=bm9wZQ', 'cursor is not a value this server gave'],
      [`cursor=${Buffer.from(JSON.stringify(['2025-01-01T00:00:00Z', 'x'])).toString('base64url')}`, 'cursor is not a value this server gave'],
      // Forged dates: year 0 and before it reached the database as a 500.
      ...['0000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z', '1969-12-31T00:00:00.000Z'].map((time) => [
        `cursor=${Buffer.from(JSON.stringify([time, '00000000-0000-4000-8000-000000000000'])).toString('base64url')}`,
        'cursor is not a value this server gave',
      ]),
    ]) {
      const res = await t.fetch(`/api/v1/issues?${query}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { status: 400, message } });
    }
    const next = links(await t.fetch('/api/v1/issues?limit=5')).next!;
    const both = await t.fetch(`${next}&offset=5`);
    expect(await both.json()).toEqual({ error: { status: 400, message: 'Give cursor or offset, not both' } });
  });
});
