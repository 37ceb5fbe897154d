// Idempotent upsert, concurrency, alias merging, rejection and publishing, through the admin
// GraphQL mutation on a real database, with a real subscriber on the newIssues topic.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { relayEvents, relayPending } from '../../src/ingest/relay.js';
import { recordingLog } from '../helpers/recording-log.js';
import { createIssuePubSub, type NewIssuesEvent } from '../../src/pubsub.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, ingestMutation, loadAdvisories, loadAdvisory } from '../helpers/samples.js';

let t: TestApp;
let published: NewIssuesEvent[];
let stopListening: () => void;

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
});
afterAll(async () => t?.close());

beforeEach(async () => {
  await t.db.prisma.issueEvent.deleteMany();
  await t.db.prisma.issue.deleteMany();
  published = [];
  const iterator = t.pubsub.subscribe('newIssues')[Symbol.asyncIterator]();
  let stopped = false;
  stopListening = () => {
    stopped = true;
    void iterator.return?.();
  };
  void (async () => {
    while (!stopped) {
      const next = await iterator.next();
      if (next.done) return;
      published.push(next.value);
    }
  })();
  await new Promise((r) => setTimeout(r, 10));
});
afterEach(() => stopListening());

async function ingest(items: unknown[]) {
  const { status, body } = await t.graphql(ingestMutation, { items }, adminHeaders);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.ingestItems.data as {
    received: number;
    created: number;
    updated: number;
    unchanged: number;
    rejected: { index: number; message: string }[];
    ids: string[];
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('idempotency', () => {
  it('the same batch three times, twice concurrently: same counts, one publish', async () => {
    const batch = loadAdvisories().slice(0, 30);
    const [a, b] = await Promise.all([ingest(batch), ingest(batch)]);
    const c = await ingest(batch);
    const results = [a, b, c];
    expect(results.map((r) => r.created).sort()).toEqual([0, 0, 30]);
    for (const r of results) {
      expect(r.received).toBe(30);
      expect(r.created + r.unchanged).toBe(30);
      expect(r.updated).toBe(0);
      expect(r.rejected).toEqual([]);
    }
    expect(new Set([a.ids.join(), b.ids.join(), c.ids.join()]).size).toBe(1);
    expect(await t.db.prisma.issue.count()).toBe(30);
    expect(await t.db.prisma.issueEvent.count()).toBe(1);
    await settle();
    expect(published).toHaveLength(1);
    expect(new Set(published[0]!.issueIds)).toEqual(new Set(a.ids));
    expect(await t.db.prisma.issueEvent.count({ where: { relayedAt: null } })).toBe(0);
  });

  it('changed content updates in place and publishes nothing', async () => {
    const original = loadAdvisory('GHSA-2jxw-4hm4-6w87');
    const [first] = (await ingest([original])).ids;
    const before = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: first! } });
    const revised = { ...original, modified: '2024-02-01T00:00:00Z', summary: 'SQL injection in llama-index Text-to-SQL' };
    const result = await ingest([revised]);
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 0, ids: [first] });
    const after = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: first! } });
    expect(after.title).toBe('SQL injection in llama-index Text-to-SQL');
    expect(after.contentHash).not.toBe(before.contentHash);
    expect(after.firstSeenAt).toEqual(before.firstSeenAt);
    await settle();
    expect(published).toHaveLength(1); // the first ingest only
  });

  it('stores and updates every record of a chunk written in several statements', async () => {
    const base = loadAdvisory('GHSA-2jxw-4hm4-6w87');
    // More than the rows of one write statement (store.ts), inside one ingest chunk.
    const records = (summary: string, modified: string) =>
      Array.from({ length: 450 }, (_, i) => ({ ...base, id: `TEST-${i}`, aliases: [], references: [], summary: `${summary} ${i}`, modified }));
    expect(await ingest(records('first', '2024-01-01T00:00:00Z'))).toMatchObject({ created: 450, updated: 0, rejected: [] });
    expect(await ingest(records('second', '2024-02-01T00:00:00Z'))).toMatchObject({ created: 0, updated: 450, rejected: [] });
    expect(await t.db.prisma.issue.count()).toBe(450);
    expect(await t.db.prisma.issue.count({ where: { title: { startsWith: 'second ' } } })).toBe(450);
  });

  it('reordered keys are the same content', async () => {
    const original = loadAdvisory('GHSA-2ww3-fxvq-293j');
    await ingest([original]);
    const reordered = Object.fromEntries(Object.entries(original).reverse());
    expect(await ingest([reordered])).toMatchObject({ unchanged: 1, updated: 0 });
  });

  it('duplicates inside one batch become one issue', async () => {
    const a = loadAdvisory('GHSA-3x5j-9vwr-8rr5');
    const changed = { ...a, summary: 'Gradio: hard-coded share link credentials' };
    const result = await ingest([a, a, changed]);
    expect(result).toMatchObject({ received: 3, created: 1, unchanged: 1, updated: 1 });
    expect(result.ids).toHaveLength(1);
    const row = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: result.ids[0]! } });
    expect(row.title).toBe('Gradio: hard-coded share link credentials');
    await settle();
    expect(published).toHaveLength(1);
  });
});

describe('aliases', () => {
  const nativeAboutCve = {
    title: 'Researchers detail LlamaIndex Text-to-SQL injection',
    url: 'https://example.org/llamaindex-sqli',
    publishedAt: '2024-01-25',
    type: 'news',
    cve: 'CVE-2024-23751',
    summary: 'A write-up of CVE-2024-23751 in the LlamaIndex Text-to-SQL engines.',
  };

  it("a news article about an advisory's CVE is its own news issue, carrying the CVE, and both count the cross-reference", async () => {
    const advisory = await ingest([loadAdvisory('GHSA-2jxw-4hm4-6w87')]);
    const { summary: _s, cve: _c, ...untyped } = nativeAboutCve;
    const native = await ingest([{ ...untyped, summary: 'A write-up of CVE-2024-23751 in the LlamaIndex Text-to-SQL engines.' }]);
    expect(native).toMatchObject({ created: 1 });
    expect(await ingest([{ ...untyped, summary: 'A write-up of CVE-2024-23751 in the LlamaIndex Text-to-SQL engines.' }])).toMatchObject({ unchanged: 1 });
    const article = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: native.ids[0]! } });
    expect(article).toMatchObject({ cveId: 'CVE-2024-23751', naturalKey: 'https://example.org/llamaindex-sqli', crossRefCount: 1 });
    expect(['news', 'research']).toContain(article.issueType);
    const row = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: advisory.ids[0]! } });
    expect(row).toMatchObject({ title: 'SQL injection in llama-index', crossRefCount: 1 });
  });

  it('an advisory arriving after an article about its CVE is an issue of its own', async () => {
    const native = await ingest([nativeAboutCve]);
    const advisory = await ingest([loadAdvisory('GHSA-2jxw-4hm4-6w87')]);
    expect(advisory).toMatchObject({ created: 1 });
    expect(advisory.ids).not.toEqual(native.ids);
    const row = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: native.ids[0]! } });
    expect(row).toMatchObject({ issueType: 'news', cveId: 'CVE-2024-23751', naturalKey: 'https://example.org/llamaindex-sqli' });
  });

  it('a feed entry linking the advisory page is that advisory: it attaches, before or after the advisory arrives', async () => {
    const page = {
      title: 'SQL injection in llama-index (CVE-2024-23751)',
      url: 'https://github.com/advisories/GHSA-2jxw-4hm4-6w87',
      publishedAt: '2024-01-22',
    };
    const first = await ingest([page]);
    const advisory = await ingest([loadAdvisory('GHSA-2jxw-4hm4-6w87')]);
    expect(advisory).toMatchObject({ created: 0, updated: 1, ids: first.ids });
    expect(await ingest([page])).toMatchObject({ unchanged: 1, ids: first.ids });
    const row = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: first.ids[0]! } });
    expect(row).toMatchObject({ issueType: 'vulnerability', severity: 'high', naturalKey: 'CVE-2024-23751' });
    expect(row.identifiers).toContain('https://github.com/advisories/GHSA-2jxw-4hm4-6w87');
    expect(await t.db.prisma.issue.count()).toBe(1);
  });
});

describe('rejection', () => {
  it('rejects malformed records with their index and reason, and stores the rest', async () => {
    const good = loadAdvisory('GHSA-2ww3-fxvq-293j');
    const { modified: _m, ...noModified } = loadAdvisory('GHSA-3c67-5hwx-f6wx');
    const result = await ingest([
      good,
      42,
      { ...loadAdvisory('GHSA-45gq-q4xh-cp53'), modified: 'yesterday' },
      { title: 'No URL', publishedAt: '2024-01-01' },
      { title: 'Bad type', url: 'https://example.org/a', publishedAt: '2024-01-01', type: 'rumour' },
      { title: 'Typo', url: 'https://example.org/b', publishedAt: '2024-01-01', sumary: 'x' },
      { title: 'Bad ATLAS id', url: 'https://example.org/c', publishedAt: '2024-01-01', atlasIds: ['AML.T9999'] },
      { title: 'Bad CVSS', url: 'https://example.org/d', publishedAt: '2024-01-01', cvssVector: 'CVSS:3.1/AV:Q' },
      { ...noModified, schema_version: '1.4.0' },
      { title: 'A fine native item about LLM jailbreaks', url: 'https://example.org/e', publishedAt: '2024-03-01T10:00:00Z' },
      { title: 'Null byte injection in an LLM gateway', url: 'https://example.org/f', publishedAt: '2024-01-01', summary: 'path\u0000.txt' },
    ]);
    expect(result.received).toBe(11);
    expect(result.created).toBe(2);
    expect(result.rejected.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 10]);
    const message = (i: number) => result.rejected.find((r) => r.index === i)!.message;
    expect(message(1)).toMatch(/must be a JSON object/);
    expect(message(2)).toMatch(/^invalid OSV record: modified: /);
    expect(message(3)).toMatch(/^invalid item: url: /);
    expect(message(4)).toMatch(/type: /);
    expect(message(5)).toMatch(/sumary/);
    expect(message(6)).toMatch(/atlasIds\.0: must be an ATLAS technique id/);
    expect(message(7)).toMatch(/cvssVector/);
    expect(message(8)).toMatch(/modified/);
    expect(message(10)).toBe('must not contain NUL characters (U+0000)');
    expect(await t.db.prisma.issue.count()).toBe(2);
  });

  it('answers 400 for more records than one request may carry', async () => {
    const { status, body } = await t.graphql(ingestMutation, { items: Array.from({ length: 5001 }, () => ({})) }, adminHeaders);
    expect(status).toBe(400);
    expect(body.errors?.[0].message).toMatch(/At most 5000 records/);
    expect(await t.db.prisma.issue.count()).toBe(0);
  });
});

describe('relevance and publishing', () => {
  it('stores an irrelevant item but never publishes it', async () => {
    const result = await ingest([
      {
        title: 'WordPress plugin SQL injection',
        url: 'https://example.org/wp',
        publishedAt: '2024-01-01',
        cve: 'CVE-2024-0001',
        summary: 'A contact-form plugin for WordPress lets visitors inject SQL.',
      },
    ]);
    expect(result.created).toBe(1);
    const row = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: result.ids[0]! } });
    expect(row.relevant).toBe(false);
    expect(await t.db.prisma.issueEvent.count()).toBe(0);
    await settle();
    expect(published).toHaveLength(0);
  });

  it('relays events a crash left unpublished, once', async () => {
    const event = await t.db.prisma.issueEvent.create({ data: { issueIds: ['00000000-0000-4000-8000-000000000001'] } });
    expect(await relayEvents(t.db.prisma, t.pubsub)).toBe(1);
    expect(await relayEvents(t.db.prisma, t.pubsub)).toBe(0);
    await settle();
    expect(published).toEqual([{ eventId: event.id, issueIds: ['00000000-0000-4000-8000-000000000001'] }]);
  });

  it('leaves an event whose publish failed to the next run', async () => {
    const event = await t.db.prisma.issueEvent.create({ data: { issueIds: ['00000000-0000-4000-8000-000000000002'] } });
    // A real Redis client on a port nothing listens on: the publish fails after its retries.
    const unreachable = createIssuePubSub({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: 'secwire-test:' });
    const log = recordingLog();
    try {
      await expect(relayEvents(t.db.prisma, unreachable.pubsub)).rejects.toThrow();
      // As every ingest during an outage relays: the outage is one warning, not an error each time.
      expect(await relayPending(t.db.prisma, unreachable.pubsub, log)).toBe(0);
      expect(await relayPending(t.db.prisma, unreachable.pubsub, log)).toBe(0);
      expect(log.entries.map((e) => [e.level, e.msg])).toEqual([['warn', 'issue event relay failed; events wait in the outbox for the next run']]);
    } finally {
      await unreachable.close();
    }
    expect(await t.db.prisma.issueEvent.findUniqueOrThrow({ where: { id: event.id } })).toMatchObject({ relayedAt: null });
    expect(await relayEvents(t.db.prisma, t.pubsub)).toBe(1);
    await settle();
    expect(published).toEqual([{ eventId: event.id, issueIds: ['00000000-0000-4000-8000-000000000002'] }]);
  });

  it('keeps crossRefCount right as related issues arrive', async () => {
    const [first] = (await ingest([loadAdvisory('GHSA-57fc-8q82-gfp3')])).ids; // langchain
    expect((await t.db.prisma.issue.findUniqueOrThrow({ where: { id: first! } })).crossRefCount).toBe(0);
    await ingest([loadAdvisory('GHSA-655w-fm8m-m478'), loadAdvisory('GHSA-2ww3-fxvq-293j')]); // langchain, nltk
    const rows = await t.db.prisma.issue.findMany({ orderBy: { naturalKey: 'asc' } });
    expect(Object.fromEntries(rows.map((r) => [r.naturalKey, r.crossRefCount]))).toEqual({
      'CVE-2021-3828': 0,
      'CVE-2023-36188': 1,
      'CVE-2023-46229': 1,
    });
  });

  it('counts only served neighbours, and counts an issue when it becomes served', async () => {
    const a = loadAdvisory('GHSA-57fc-8q82-gfp3'); // langchain
    const b = loadAdvisory('GHSA-655w-fm8m-m478'); // langchain
    const counts = async () =>
      Object.fromEntries((await t.db.prisma.issue.findMany({ where: { withdrawn: false } })).map((r) => [r.naturalKey, r.crossRefCount]));
    // Stored withdrawn, so never served: its neighbour does not count it.
    await ingest([{ ...a, withdrawn: a.modified }]);
    await ingest([b]);
    expect(await counts()).toEqual({ 'CVE-2023-46229': 0 });
    // Back in the feed: both count each other.
    expect(await ingest([{ ...a, modified: '2025-01-01T00:00:00Z' }])).toMatchObject({ updated: 1 });
    expect(await counts()).toEqual({ 'CVE-2023-36188': 1, 'CVE-2023-46229': 1 });
  });

  it('recounts old neighbours when an issue moves to another package or is withdrawn', async () => {
    const a = loadAdvisory('GHSA-57fc-8q82-gfp3'); // langchain
    const b = loadAdvisory('GHSA-655w-fm8m-m478'); // langchain
    const c = loadAdvisory('GHSA-3x5j-9vwr-8rr5'); // gradio
    await ingest([a, b, c]);
    const counts = async () => Object.fromEntries((await t.db.prisma.issue.findMany()).map((r) => [r.naturalKey, r.crossRefCount]));
    expect(await counts()).toEqual({ 'CVE-2023-36188': 1, 'CVE-2023-46229': 1, 'CVE-2023-25823': 0 });
    const moved = { ...b, modified: '2025-01-01T00:00:00Z', affected: [{ ...b.affected[0], package: { ecosystem: 'PyPI', name: 'gradio' } }] };
    expect(await ingest([moved])).toMatchObject({ updated: 1 });
    expect(await counts()).toEqual({ 'CVE-2023-36188': 0, 'CVE-2023-46229': 1, 'CVE-2023-25823': 1 });
    expect(await ingest([{ ...c, modified: '2025-01-01T00:00:00Z', withdrawn: '2025-01-01T00:00:00Z' }])).toMatchObject({ updated: 1 });
    expect(await counts()).toEqual({ 'CVE-2023-36188': 0, 'CVE-2023-46229': 0, 'CVE-2023-25823': 1 });
  });

  it('an issue that comes back into the feed is found by word again, and one that moves by its new words', async () => {
    // The words index is kept for served rows only, by the database, when a row is written.
    const a = loadAdvisory('GHSA-57fc-8q82-gfp3'); // langchain, "arbitrary code execution"
    const found = async (words: string) => {
      const { body } = await t.graphql(`query($s: String) { issues(search: $s, limit: 100) { data { cveId } } }`, { s: words });
      return (body.data.issues.data as { cveId: string }[]).map((i) => i.cveId);
    };
    await ingest([{ ...a, withdrawn: a.modified }]);
    expect(await found('langchain executing')).toEqual([]);
    await ingest([{ ...a, modified: '2025-01-01T00:00:00Z' }]);
    expect(await found('langchain executing')).toEqual(['CVE-2023-36188']);
    await ingest([{ ...a, modified: '2025-01-02T00:00:00Z', summary: 'Quasar overflow in the loader' }]);
    expect(await found('quasars')).toEqual(['CVE-2023-36188']);
  });

  it('keeps every served count exact through random batches of moves, withdrawals, returns and new aliases', async () => {
    // Counts move by deltas, not recounts: after each batch, compare every served issue's count
    // with one worked out here from all stored issues.
    const records = loadAdvisories().slice(0, 10);
    const packages = ['langchain', 'gradio', 'nltk', 'requests'];
    let seed = 20261125;
    const random = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0), (seed >>> 16) % n);
    let minute = 0;
    const version = (record: Record<string, any>, change: Record<string, unknown>) => {
      minute += 1;
      return { ...record, ...change, modified: new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString() };
    };
    const current = records.map((r) => ({ ...r }));
    const check = async (step: number) => {
      const rows = await t.db.prisma.issue.findMany({
        select: { naturalKey: true, identifiers: true, packageNames: true, relevant: true, withdrawn: true, crossRefCount: true },
      });
      const servedRows = rows.filter((r) => r.relevant && !r.withdrawn);
      const shares = (a: (typeof rows)[number], b: (typeof rows)[number]) =>
        a.identifiers.some((k) => b.identifiers.includes(k)) || a.packageNames.some((k) => b.packageNames.includes(k));
      const expected = Object.fromEntries(servedRows.map((r) => [r.naturalKey, servedRows.filter((o) => o !== r && shares(r, o)).length]));
      expect(Object.fromEntries(servedRows.map((r) => [r.naturalKey, r.crossRefCount])), `after batch ${step}`).toEqual(expected);
      return servedRows.length;
    };

    await ingest(current);
    await check(0);
    const servedSizes = new Set<number>();
    for (let step = 1; step <= 12; step++) {
      const batch: Record<string, any>[] = [];
      for (let n = 1 + random(3); n > 0; n--) {
        const i = random(current.length);
        const r = current[i]!;
        const kind = random(4);
        if (kind === 0) current[i] = version(r, { affected: [{ ...r.affected[0], package: { ecosystem: 'PyPI', name: packages[random(packages.length)] } }] });
        else if (kind === 1) current[i] = version(r, { withdrawn: '2025-01-01T00:00:00Z' });
        else if (kind === 2) current[i] = version(r, { withdrawn: undefined });
        else current[i] = version(r, { aliases: [...(r.aliases ?? []), `PYSEC-2025-${step}${n}`] });
        batch.push(current[i]!);
      }
      await ingest(batch);
      servedSizes.add(await check(step));
    }
    // The walk did move issues in and out of the feed.
    expect(servedSizes.size).toBeGreaterThan(1);
  });
});

describe('admin key', () => {
  it('answers 401 without the key, with a wrong key, and when no key is configured', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: adminKey }] as Record<string, string>[]) {
      const { status, body } = await t.graphql(ingestMutation, { items: [loadAdvisory('GHSA-2ww3-fxvq-293j')] }, headers);
      expect(status).toBe(401);
      expect(body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const closed = await createTestApp({}, t.db);
    try {
      const { status } = await closed.graphql(ingestMutation, { items: [loadAdvisory('GHSA-2ww3-fxvq-293j')] }, adminHeaders);
      expect(status).toBe(401);
    } finally {
      await closed.close();
    }
    expect(await t.db.prisma.issue.count()).toBe(0);
  });
});
