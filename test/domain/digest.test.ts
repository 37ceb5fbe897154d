// Daily digests: content grouped by severity and type with links, counts, regeneration, the
// admin mutation's validation, the schedule's timing, and seeding the sample data's days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSampleData } from '../../src/server/seed.js';
import { yesterdayUtc } from '../../src/dates.js';
import { msUntilNextRun } from '../../src/digest/schedule.js';
import { createLogger } from '../../src/log.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, ingestMutation, loadAdvisory } from '../helpers/samples.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
});
afterAll(async () => t?.close());

const digestMutation = `mutation Digest($date: String) { generateDigest(date: $date) { data { date content issueCount generatedAt } } }`;

async function digest(date?: string) {
  const { status, body } = await t.graphql(digestMutation, date ? { date } : {}, adminHeaders);
  return { status, body, data: body.data?.generateDigest?.data as { date: string; content: string; issueCount: number; generatedAt: string } };
}

describe('generateDigest', () => {
  it("summarises the day's served issues by severity and type, with links", async () => {
    const { body } = await t.graphql(
      ingestMutation,
      {
        items: [
          loadAdvisory('GHSA-2jxw-4hm4-6w87'), // 2024-01-22, high vulnerability
          {
            title: 'Prompt injection worm hits LLM email assistants',
            url: 'https://example.org/worm',
            publishedAt: '2024-01-22T09:00:00Z',
            type: 'incident',
            severity: 'critical',
            summary: 'A self-replicating prompt spread between LLM email assistants. It stole contacts.',
          },
          {
            title: 'Regulators publish AI model guidance',
            url: 'https://example.org/guidance',
            publishedAt: '2024-01-22T23:59:59Z',
            type: 'regulatory',
            summary: 'Guidance on artificial intelligence model risk management.',
          },
          {
            title: 'Spreadsheet macro flaw',
            url: 'https://example.org/macro',
            publishedAt: '2024-01-22T10:00:00Z',
            summary: 'A macro flaw in an office suite.',
          },
          {
            title: 'Next-day LLM jailbreak paper',
            url: 'https://example.org/next',
            publishedAt: '2024-01-23T00:00:00Z',
            type: 'research',
            summary: 'A jailbreak of large language models.',
          },
        ],
      },
      adminHeaders,
    );
    expect(body.data.ingestItems.data.created).toBe(5);

    const { status, data } = await digest('2024-01-22');
    expect(status).toBe(200);
    expect(data).toMatchObject({ date: '2024-01-22', issueCount: 3 });
    expect(new Date(data.generatedAt).toISOString()).toBe(data.generatedAt);
    const c = data.content;
    expect(c).toMatch(/^# secwire daily digest: 2024-01-22\n/);
    expect(c).toContain('3 issues were published on 2024-01-22 (UTC): 1 critical, 1 high, 1 info.');
    // severity order, then type headings under each severity
    const order = [
      '## Critical',
      '### Incidents',
      '[Prompt injection worm hits LLM email assistants](https://example.org/worm)',
      '## High',
      '### Vulnerabilities',
      '[SQL injection in llama-index (CVE-2024-23751)](https://github.com/advisories/GHSA-2jxw-4hm4-6w87)',
      '## Info',
      '### Regulatory',
      '(https://example.org/guidance)',
    ];
    // The list of every item follows the briefing (top items, exploited now, attack types).
    const list = c.slice(c.indexOf('## Critical'));
    const positions = order.map((s) => list.indexOf(s));
    expect(
      positions.every((p) => p >= 0),
      c,
    ).toBe(true);
    expect(c.indexOf('## Top items')).toBeLessThan(c.indexOf('## Critical'));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(c).toContain('A self-replicating prompt spread between LLM email assistants.');
    expect(c).not.toContain('Spreadsheet macro flaw'); // not relevant: never served, never in a digest
    expect(c).not.toContain('Next-day'); // published the next UTC day
    expect(c).not.toContain('## Medium');
  });

  it('brings an existing digest up to date when an issue of its day arrives late, and regenerates a day in place', async () => {
    await t.graphql(
      ingestMutation,
      {
        items: [
          {
            title: 'Late LLM agent incident',
            url: 'https://example.org/late',
            publishedAt: '2024-01-22T12:00:00Z',
            type: 'incident',
            summary: 'A prompt injection in a web page made an AI agent delete files.',
          },
        ],
      },
      adminHeaders,
    );
    const refreshed = await t.db.prisma.digest.findUniqueOrThrow({ where: { date: '2024-01-22' } });
    expect(refreshed.issueCount).toBe(4);
    expect(refreshed.content).toContain('Late LLM agent incident');
    // A day that has no digest does not get one from an ingest.
    expect(await t.db.prisma.digest.count({ where: { date: '2024-01-23' } })).toBe(0);
    const { data } = await digest('2024-01-22');
    expect(data.issueCount).toBe(4);
    expect(data.content).toContain('Late LLM agent incident');
    expect(await t.db.prisma.digest.count({ where: { date: '2024-01-22' } })).toBe(1);
  });

  it('moves an issue between existing digests when a re-ingest changes its date', async () => {
    await digest('2024-01-23');
    const item = { title: 'Moving LLM advisory', url: 'https://example.org/moving', type: 'research', summary: 'A jailbreak of large language models.' };
    const ingestAt = (publishedAt: string) => t.graphql(ingestMutation, { items: [{ ...item, publishedAt }] }, adminHeaders);
    const contentOf = async (date: string) => (await t.db.prisma.digest.findUniqueOrThrow({ where: { date } })).content;
    await ingestAt('2024-01-22T08:00:00Z');
    expect(await contentOf('2024-01-22')).toContain('Moving LLM advisory');
    expect(await contentOf('2024-01-23')).not.toContain('Moving LLM advisory');
    const moved = await ingestAt('2024-01-23T08:00:00Z');
    expect(moved.body.data.ingestItems.data.updated).toBe(1);
    expect(await contentOf('2024-01-22')).not.toContain('Moving LLM advisory');
    expect(await contentOf('2024-01-23')).toContain('Moving LLM advisory');
  });

  it('writes an empty digest for a quiet day and defaults to yesterday', async () => {
    const { data } = await digest();
    expect(data).toMatchObject({ date: yesterdayUtc(), issueCount: 0 });
    expect(data.content).toContain('No new AI-security issues were published');
  });

  it('rejects malformed and future dates with 400, and callers without the key with 401', async () => {
    for (const date of ['2024-02-30', '22-01-2024', 'yesterday', '2999-01-01']) {
      const { status, body } = await digest(date);
      expect(status, date).toBe(400);
      expect(body.errors?.[0].extensions.code).toBe('BAD_REQUEST');
    }
    const { status } = await t.graphql(digestMutation, { date: '2024-01-22' }, { authorization: 'Bearer nope' });
    expect(status).toBe(401);
  });
});

describe('schedule', () => {
  it('runs five minutes after the next UTC midnight', () => {
    expect(msUntilNextRun(new Date('2024-05-01T12:00:00Z'))).toBe(12 * 3600_000 + 5 * 60_000);
    expect(msUntilNextRun(new Date('2024-05-01T00:02:00Z'))).toBe(3 * 60_000);
    expect(msUntilNextRun(new Date('2024-05-01T00:05:00Z'))).toBe(24 * 3600_000);
  });
});

describe('sample data', () => {
  it('seeds an empty database once, with a digest for each day that has served issues', async () => {
    const app = await createTestApp({ adminApiKey: adminKey });
    try {
      const deps = { prisma: app.db.prisma, pubsub: app.pubsub, log: createLogger('silent'), db: app.db };
      const seeded = await seedSampleData(deps);
      expect(seeded).not.toBeNull();
      expect(seeded!.rejected).toEqual([]);
      expect(seeded!.created).toBe(147);
      const types = await app.db.prisma.issue.groupBy({ by: ['issueType'], where: { relevant: true }, _count: true });
      expect(types.map((g) => g.issueType).sort()).toEqual(['incident', 'news', 'regulatory', 'research', 'vulnerability']);
      expect(await app.db.prisma.issue.count({ where: { relevant: false } })).toBe(1); // Log4Shell, out of scope
      const days = await app.db.prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(DISTINCT to_char("publishedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD')) AS n FROM "Issue" WHERE relevant`;
      expect(await app.db.prisma.digest.count()).toBe(Number(days[0]!.n));
      expect(seeded!.digests).toBe(Number(days[0]!.n));
      const aiAct = await app.db.prisma.digest.findUniqueOrThrow({ where: { date: '2024-08-01' } });
      expect(aiAct.content).toContain('[EU AI Act enters into force](https://commission.europa.eu/news/ai-act-enters-force-2024-08-01_en)');
      expect(await seedSampleData(deps)).toBeNull();
    } finally {
      await app.close();
    }
  }, 120_000);
});
