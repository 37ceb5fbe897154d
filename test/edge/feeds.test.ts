// Atom feeds of issues and digests, read with a maintained feed parser, and past digests by page
// (GET /api/v1/digests) and by day (GET /api/v1/digests/{date}).
import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { adminHeaders, adminKey } from '../helpers/samples.js';

let t: TestApp;
const days = ['2025-03-01', '2025-03-02', '2025-03-03'];

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  await t.db.prisma.issue.createMany({
    data: [
      makeIssue({
        title: 'Critical <script>alert(1)</script> & co',
        severity: 'critical',
        labels: ['security'],
        publishedAt: new Date('2025-03-01T10:00:00Z'),
        summary: 'Tags <b>stay</b> text.',
      }),
      makeIssue({ title: 'Second critical', severity: 'critical', publishedAt: new Date('2025-03-02T10:00:00Z') }),
      makeIssue({ title: 'A high one', severity: 'high', issueType: 'incident', publishedAt: new Date('2025-03-03T10:00:00Z') }),
      makeIssue({ title: 'Unserved', severity: 'critical', relevant: false, publishedAt: new Date('2025-03-03T11:00:00Z') }),
    ],
  });
  for (const date of [...days, '2025-03-04']) {
    const res = await t.fetch('/api/v1/admin/digests', {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ date }),
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => t?.close());

async function atom(path: string) {
  const res = await t.fetch(path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
  return parseFeed(await res.text());
}

describe('GET /api/v1/issues.atom', () => {
  it('is an Atom feed of served issues, newest first, with their links, dates and categories', async () => {
    const feed = await atom('/api/v1/issues.atom');
    expect(feed.meta.type).toBe('atom');
    expect(feed.self).toBe('http://localhost/api/v1/issues.atom');
    expect(feed.items.map((i) => i.title)).toEqual(['A high one', 'Second critical', 'Critical <script>alert(1)</script> & co']);
    const first = feed.items[2]!;
    const stored = await t.db.prisma.issue.findFirstOrThrow({ where: { title: { startsWith: 'Critical' } } });
    expect(first.id).toBe(`urn:uuid:${stored.id}`);
    expect(first.url).toBe(stored.sourceUrl);
    expect(first.published?.toISOString()).toBe('2025-03-01T10:00:00.000Z');
    expect(first.description).toBe('Tags <b>stay</b> text.');
    expect(first.categories.map((c) => c.term)).toEqual(['severity:critical', 'issueType:vulnerability', 'security']);
    // Content as given (no upstream modified, no change made here): dated by its publication, not by when it was stored.
    expect(first.updated?.toISOString()).toBe('2025-03-01T10:00:00.000Z');
    expect(feed.updated?.toISOString()).toBe('2025-03-03T10:00:00.000Z');
  });

  it('takes the list filters and a limit', async () => {
    expect((await atom('/api/v1/issues.atom?severity=critical')).items.map((i) => i.title)).toEqual([
      'Second critical',
      'Critical <script>alert(1)</script> & co',
    ]);
    expect((await atom('/api/v1/issues.atom?issueType=incident')).items).toHaveLength(1);
    expect((await atom('/api/v1/issues.atom?limit=1')).items.map((i) => i.title)).toEqual(['A high one']);
    expect((await atom('/api/v1/issues.atom?search=nothing-matches')).items).toEqual([]);
  });

  it.each([
    ['severity=urgent', 'severity must be one of: critical, high, medium, low, info'],
    ['limit=0', 'limit must be at least 1'],
    ['limit=1&limit=2', 'limit must be given at most once'],
    ['colour=red', expect.stringMatching(/^Unknown query parameter: colour \(known: .*\blimit\b/)],
  ])('answers %s with the 400 envelope', async (query, message) => {
    const res = await t.fetch(`/api/v1/issues.atom?${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { status: 400, message } });
  });
});

describe('digests', () => {
  it('GET /api/v1/digests.atom lists the non-empty digests, newest day first, with their text', async () => {
    const feed = await atom('/api/v1/digests.atom');
    expect(feed.items.map((i) => i.url)).toEqual([...days].reverse().map((d) => `http://localhost/api/v1/digests/${d}`));
    expect(feed.items[0]!.title).toBe('secwire daily digest: 2025-03-03 (1 issue)');
    // Rendered HTML, not Markdown in <pre>: headings, and the item's link clickable.
    expect(feed.items[0]!.content).toContain('<h1>secwire daily digest: 2025-03-03</h1>');
    expect(feed.items[0]!.content).not.toContain('<pre>');
    expect(feed.items[0]!.content).toMatch(/<a href="https:\/\/example\.org\/[^"]+">A high one<\/a>/);
  });

  it('GET /api/v1/digests pages through past digests with the list meta', async () => {
    const res = await t.fetch('/api/v1/digests?limit=2');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.meta).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(body.data.map((d: { date: string }) => d.date)).toEqual(['2025-03-03', '2025-03-02']);
    const next = await (await t.fetch('/api/v1/digests?limit=2&offset=2')).json();
    expect(next.data.map((d: { date: string }) => d.date)).toEqual(['2025-03-01']);
  });

  it('GET /api/v1/digests/{date} answers any generated day, 404 for none and 400 for a bad date', async () => {
    const one = await t.fetch('/api/v1/digests/2025-03-02');
    expect(one.status).toBe(200);
    expect((await one.json()).data).toMatchObject({ date: '2025-03-02', issueCount: 1 });
    // An empty day that was generated is still reachable by its date.
    expect((await (await t.fetch('/api/v1/digests/2025-03-04')).json()).data.issueCount).toBe(0);
    const none = await t.fetch('/api/v1/digests/2024-01-01');
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: { status: 404, message: 'No digest for 2024-01-01' } });
    const bad = await t.fetch('/api/v1/digests/2025-02-30');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { status: 400, message: 'date must be a calendar date written YYYY-MM-DD' } });
  });

  it('GraphQL digests and digest agree with REST', async () => {
    const { body } = await t.graphql('{ digests(limit: 1) { meta { total } data { date } } digest(date: "2025-03-01") { data { issueCount } } }');
    expect(body.data).toEqual({ digests: { meta: { total: 3 }, data: [{ date: '2025-03-03' }] }, digest: { data: { issueCount: 1 } } });
  });
});
