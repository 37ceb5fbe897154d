// Health, readiness, migrations and stats on the test database (the checks that never touch it
// are in schema-and-config.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logLevel: 'error' });
});
afterAll(async () => t?.close());

describe('health and readiness', () => {
  it('GET /health answers 200', async () => {
    const res = await t.fetch('/health');
    expect(res.status).toBe(200);
  });

  it('GET /ready answers 200 once migrated, and 503 before', async () => {
    // The first query of a cold embedded database can take longer than /ready's 1 s budget on a
    // loaded machine (a 503, as for any database that does not answer in time): ask until it is warm.
    let res = await t.fetch('/ready');
    while (res.status === 503) res = await t.fetch('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
    const unmigrated = await openDatabase({ kind: 'pglite' });
    const early = await createTestApp({}, unmigrated);
    try {
      const notReady = await early.fetch('/ready');
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not ready' });
    } finally {
      await early.close();
      await unmigrated.close();
    }
  }, 120_000); // a fresh embedded database (initdb in Wasm) takes well over 30 s on a loaded machine

  it('serves GraphiQL to browsers on GET /graphql', async () => {
    const res = await t.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });
});

describe('migrations', () => {
  it('applies nothing twice', async () => {
    expect(await migrate(t.db.adapterFactory)).toEqual([]);
    const rows = await t.db.prisma.$queryRaw<{ migration_name: string; n: bigint }[]>`
      SELECT migration_name, count(*) AS n FROM "_prisma_migrations" GROUP BY migration_name`;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row.n)).toBe(1);
  });
});

describe('stats', () => {
  it('counts only served issues and digests', async () => {
    const base = {
      title: 't',
      sourceUrl: 'https://example.org/x',
      severity: 'high' as const,
      issueType: 'vulnerability' as const,
      classifierModel: 'test',
      classifierPromptVersion: 'v0',
      attackSophistication: 'trivial',
      llmSpecific: false,
      classifierConfidence: 0.5,
      contentHash: 'h',
      searchText: 't',
      source: {},
    };
    const now = Date.now();
    await t.db.prisma.issue.createMany({
      data: [
        { ...base, naturalKey: 'a', relevant: true, publishedAt: new Date(now - 3600_000) },
        { ...base, naturalKey: 'b', relevant: true, publishedAt: new Date(now - 3 * 24 * 3600_000) },
        { ...base, naturalKey: 'c', relevant: true, publishedAt: new Date(now - 30 * 24 * 3600_000) },
        { ...base, naturalKey: 'd', relevant: false, publishedAt: new Date(now - 3600_000) },
        { ...base, naturalKey: 'e', relevant: true, withdrawn: true, publishedAt: new Date(now - 3600_000) },
      ],
    });
    await t.db.prisma.digest.create({ data: { date: '2026-01-01', content: '# x', issueCount: 1 } });
    const { status, body } = await t.graphql('{ stats { data { totalIssues totalDigests last24h last7d } } }');
    expect(status).toBe(200);
    expect(body.data.stats.data).toEqual({ totalIssues: 3, totalDigests: 1, last24h: 1, last7d: 2 });
  });
});
