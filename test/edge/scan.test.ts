// Stack scan through GraphQL on a real database: name, version and purl matching on issues whose
// source carries real OSV ranges, vendors, filters, ordering, the histogram and validation.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { osvAffected } from '../fixtures/osv-affected.js';

let t: TestApp;
const ids: Record<string, string> = {};
const publishedAt = new Map<string, number>();
const severityRank = { critical: 0, high: 1, medium: 2, low: 3, info: 4 } as const;

const advisory = (key: keyof typeof osvAffected, fields: Partial<Prisma.IssueCreateManyInput>) => {
  const affected = osvAffected[key];
  return makeIssue({
    naturalKey: key,
    title: `${key} advisory`,
    source: { id: key, affected },
    packageNames: [...new Set(affected.map((a) => a.package.name.toLowerCase()))],
    ...fields,
  });
};

const rows: [string, Prisma.IssueCreateManyInput][] = [
  [
    'lc236',
    advisory('GHSA-57fc-8q82-gfp3', {
      severity: 'critical',
      cveId: 'CVE-2023-36188',
      publishedAt: new Date('2023-07-06T15:30:33Z'),
      vendorKeys: ['langchain'],
    }),
  ],
  [
    'lc156',
    advisory('GHSA-8h5w-f6q9-wg35', {
      severity: 'critical',
      cveId: 'CVE-2023-32785',
      publishedAt: new Date('2023-10-21T00:30:47Z'),
      vendorKeys: ['langchain'],
    }),
  ],
  [
    'lc171',
    advisory('GHSA-7gfq-f96f-g85j', {
      severity: 'critical',
      cveId: 'CVE-2023-36281',
      publishedAt: new Date('2023-08-22T21:30:27Z'),
      vendorKeys: ['langchain'],
    }),
  ],
  [
    'lc225',
    advisory('GHSA-7q94-qpjr-xpgm', { severity: 'high', cveId: 'CVE-2023-36189', publishedAt: new Date('2023-07-06T15:30:33Z'), vendorKeys: ['langchain'] }),
  ],
  [
    'lc0111',
    advisory('GHSA-h59x-p739-982c', { severity: 'low', cveId: 'CVE-2024-28088', publishedAt: new Date('2024-03-04T00:30:53Z'), vendorKeys: ['langchain'] }),
  ],
  [
    'ollama',
    advisory('GHSA-8hqg-whrw-pv92', { severity: 'medium', cveId: 'CVE-2024-37032', publishedAt: new Date('2024-05-31T06:30:27Z'), vendorKeys: ['ollama'] }),
  ],
  [
    'tf',
    advisory('GHSA-q7f7-544h-67h9', { severity: 'medium', cveId: 'CVE-2021-37684', publishedAt: new Date('2021-08-25T14:40:13Z'), vendorKeys: ['google'] }),
  ],
  [
    'litellm',
    advisory('GHSA-46cm-pfwv-cgf8', { severity: 'critical', cveId: 'CVE-2024-2952', publishedAt: new Date('2024-04-10T18:30:48Z'), vendorKeys: ['berriai'] }),
  ],
  [
    'news',
    makeIssue({
      naturalKey: 'news',
      title: 'OpenAI news',
      severity: 'info',
      issueType: 'news',
      publishedAt: new Date('2024-06-01T00:00:00Z'),
      affectedVendors: ['OpenAI'],
      affectedVendorsRaw: ['OpenAI API'],
      vendorKeys: ['openai', 'openai api'],
    }),
  ],
  [
    'mystery',
    makeIssue({
      naturalKey: 'mystery',
      title: 'No ranges known',
      severity: 'high',
      publishedAt: new Date('2024-02-01T00:00:00Z'),
      packageNames: ['mystery-pkg'],
    }),
  ],
  ['hidden', advisory('GHSA-57fc-8q82-gfp3', { naturalKey: 'hidden', relevant: false, severity: 'critical', publishedAt: new Date('2024-07-01T00:00:00Z') })],
  [
    'withdrawn',
    advisory('GHSA-57fc-8q82-gfp3', { naturalKey: 'withdrawn', withdrawn: true, severity: 'critical', publishedAt: new Date('2024-07-01T00:00:00Z') }),
  ],
];

beforeAll(async () => {
  t = await createTestApp();
  for (const [name, data] of rows) {
    const row = await t.db.prisma.issue.create({ data, select: { id: true, publishedAt: true } });
    ids[name] = row.id;
    publishedAt.set(row.id, row.publishedAt.getTime());
  }
});
afterAll(async () => t?.close());

const SCAN = `query Scan($packages: [String!], $vendors: [String!], $severityMin: Severity, $since: String) {
  scan(packages: $packages, vendors: $vendors, severityMin: $severityMin, since: $since) {
    data { id title severity cveId matchedPackages matchedVendors }
    meta { total bySeverity { critical high medium low info } }
  }
}`;

async function scan(variables: Record<string, unknown>) {
  const { status, body } = await t.graphql(SCAN, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.scan as {
    data: { id: string; severity: keyof typeof severityRank; matchedPackages: string[]; matchedVendors: string[] }[];
    meta: { total: number; bySeverity: Record<string, number> };
  };
}
const idsOf = (result: Awaited<ReturnType<typeof scan>>) => result.data.map((m) => m.id);
const named = (...names: string[]) => names.map((n) => ids[n]);

describe('package matching', () => {
  it('langchain@0.0.200 finds issues fixed after 0.0.200 and not those fixed at or before it', async () => {
    const result = await scan({ packages: ['langchain@0.0.200'] });
    // ordered by severity, then newest first
    expect(idsOf(result)).toEqual(named('lc236', 'lc225', 'lc0111'));
    expect(result.data[0]).toEqual({
      id: ids.lc236,
      title: 'GHSA-57fc-8q82-gfp3 advisory',
      severity: 'critical',
      cveId: 'CVE-2023-36188',
      matchedPackages: ['langchain@0.0.200'],
      matchedVendors: [],
    });
    expect(result.meta).toEqual({ total: 3, bySeverity: { critical: 1, high: 1, medium: 0, low: 1, info: 0 } });
  });

  it('a name without a version matches every served issue of that package, case-insensitively', async () => {
    const result = await scan({ packages: ['LangChain'] });
    expect(idsOf(result)).toEqual(named('lc156', 'lc171', 'lc236', 'lc225', 'lc0111'));
    expect(result.data.every((m) => m.matchedPackages[0] === 'LangChain')).toBe(true);
  });

  it('the fixed version itself and later versions drop out', async () => {
    expect(idsOf(await scan({ packages: ['langchain@0.0.236'] }))).toEqual(named('lc0111'));
    expect(idsOf(await scan({ packages: ['langchain@0.1.11'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['langchain@0.0.171'] }))).toEqual(named('lc171', 'lc236', 'lc225', 'lc0111'));
  });

  it('purls carry the ecosystem: another ecosystem with the same name does not match', async () => {
    expect(idsOf(await scan({ packages: ['pkg:pypi/LangChain@0.0.300'] }))).toEqual(named('lc0111'));
    expect(idsOf(await scan({ packages: ['pkg:npm/langchain@0.0.300'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['pkg:npm/langchain'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['pkg:golang/github.com/ollama/ollama@v0.1.30'] }))).toEqual(named('ollama'));
    expect(idsOf(await scan({ packages: ['pkg:golang/github.com/ollama/ollama@v0.1.34'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['github.com/Ollama/ollama@0.1.33'] }))).toEqual(named('ollama'));
  });

  it('several ranges and version lists of one advisory', async () => {
    expect(idsOf(await scan({ packages: ['tensorflow@2.4.1'] }))).toEqual(named('tf'));
    expect(idsOf(await scan({ packages: ['tensorflow@2.3.4'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['tensorflow@2.5.0'] }))).toEqual(named('tf'));
    expect(idsOf(await scan({ packages: ['tensorflow-cpu@2.4.1'] }))).toEqual([]);
    expect(idsOf(await scan({ packages: ['pkg:pypi/tensorflow_cpu@2.3.0'] }))).toEqual(named('tf'));
    expect(idsOf(await scan({ packages: ['litellm@1.35.0.dev1'] }))).toEqual(named('litellm'));
    expect(idsOf(await scan({ packages: ['litellm@1.34.50'] }))).toEqual([]);
  });

  it('versions that cannot be ordered, and issues without ranges, are reported rather than hidden', async () => {
    expect(idsOf(await scan({ packages: ['langchain@latest'] }))).toEqual(named('lc156', 'lc171', 'lc236', 'lc225', 'lc0111'));
    expect(idsOf(await scan({ packages: ['mystery-pkg@1.0.0'] }))).toEqual(named('mystery'));
  });

  it('never returns non-relevant or withdrawn issues', async () => {
    const result = await scan({ packages: ['langchain', 'pkg:pypi/langchain@0.0.1'] });
    expect(idsOf(result)).not.toContain(ids.hidden);
    expect(idsOf(result)).not.toContain(ids.withdrawn);
    expect(result.data[0]!.matchedPackages).toEqual(['langchain', 'pkg:pypi/langchain@0.0.1']);
  });
});

describe('vendors and filters', () => {
  it('a vendor-only scan matches normalised and raw vendor names', async () => {
    const byName = await scan({ vendors: ['OpenAI'] });
    expect(byName.data).toEqual([{ id: ids.news, title: 'OpenAI news', severity: 'info', cveId: null, matchedPackages: [], matchedVendors: ['OpenAI'] }]);
    expect(byName.meta).toEqual({ total: 1, bySeverity: { critical: 0, high: 0, medium: 0, low: 0, info: 1 } });
    expect(idsOf(await scan({ vendors: ['openai API'] }))).toEqual(named('news'));
  });

  it('packages and vendors together: each match names what matched', async () => {
    const result = await scan({ packages: ['langchain@0.0.200'], vendors: ['Ollama', 'nobody'] });
    expect(idsOf(result)).toEqual(named('lc236', 'lc225', 'ollama', 'lc0111'));
    expect(result.data.find((m) => m.id === ids.ollama)).toMatchObject({ matchedPackages: [], matchedVendors: ['Ollama'] });
  });

  it('severityMin and since narrow the result', async () => {
    expect(idsOf(await scan({ packages: ['langchain'], severityMin: 'high' }))).toEqual(named('lc156', 'lc171', 'lc236', 'lc225'));
    expect(idsOf(await scan({ packages: ['langchain'], severityMin: 'critical' }))).toEqual(named('lc156', 'lc171', 'lc236'));
    expect(idsOf(await scan({ packages: ['langchain'], since: '2024-01-01' }))).toEqual(named('lc0111'));
    // "after" is strict
    expect(idsOf(await scan({ packages: ['langchain'], since: '2024-03-04T00:30:53Z' }))).toEqual([]);
  });
});

describe('histogram invariants', () => {
  const packagePool = [
    'langchain',
    'langchain@0.0.200',
    'langchain@0.1.0',
    'pkg:pypi/langchain@0.0.100',
    'tensorflow@2.4.1',
    'litellm',
    'mystery-pkg',
    'github.com/ollama/ollama@0.1.0',
    'pkg:npm/langchain',
    'unknown-pkg',
  ];
  const vendorPool = ['openai', 'Ollama', 'langchain', 'google', 'nobody'];

  it('bySeverity has every key, sums to total, and data is ordered and explained', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(packagePool),
        fc.subarray(vendorPool),
        fc.constantFrom(undefined, 'critical', 'high', 'medium', 'low', 'info'),
        async (packages, vendors, severityMin) => {
          fc.pre(packages.length + vendors.length > 0);
          const result = await scan({ packages, vendors, severityMin });
          expect(Object.keys(result.meta.bySeverity).sort()).toEqual(['critical', 'high', 'info', 'low', 'medium']);
          expect(Object.values(result.meta.bySeverity).reduce((a, b) => a + b, 0)).toBe(result.meta.total);
          expect(result.data).toHaveLength(result.meta.total);
          for (const [severity, count] of Object.entries(result.meta.bySeverity)) {
            expect(result.data.filter((m) => m.severity === severity)).toHaveLength(count);
          }
          for (let i = 1; i < result.data.length; i++) {
            const [a, b] = [result.data[i - 1]!, result.data[i]!];
            const bySeverity = severityRank[a.severity] - severityRank[b.severity];
            expect(bySeverity < 0 || (bySeverity === 0 && publishedAt.get(a.id)! >= publishedAt.get(b.id)!)).toBe(true);
          }
          for (const match of result.data) {
            expect(match.matchedPackages.length + match.matchedVendors.length).toBeGreaterThan(0);
            for (const p of match.matchedPackages) expect(packages).toContain(p);
            for (const v of match.matchedVendors) expect(vendors).toContain(v);
            if (severityMin) expect(severityRank[match.severity]).toBeLessThanOrEqual(severityRank[severityMin as keyof typeof severityRank]);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('validation', () => {
  async function expectBadRequest(variables: Record<string, unknown>, message: RegExp) {
    const { body } = await t.graphql(SCAN, variables);
    expect(body.data?.scan ?? null).toBeNull();
    expect(body.errors?.[0]?.message).toMatch(message);
  }

  it('both lists absent or empty is a 400', async () => {
    for (const variables of [{}, { packages: [], vendors: [] }, { packages: null }]) {
      const { body } = await t.graphql(SCAN, variables);
      expect(body.errors?.[0]).toMatchObject({ message: 'Give at least one entry in packages or vendors', extensions: { code: 'BAD_REQUEST' } });
    }
  });

  it('rejects too many or too long entries, blank entries and bad purls', async () => {
    await expectBadRequest({ packages: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, /at most 1000/);
    await expectBadRequest({ vendors: ['x'.repeat(201)] }, /vendors\[0\] is longer than 200 characters/);
    await expectBadRequest({ packages: ['ok', ' '] }, /packages\[1\] is empty/);
    await expectBadRequest({ packages: ['pkg:/x'] }, /packages\[0\] is not a valid package URL/);
    await expectBadRequest({ packages: ['langchain@'] }, /empty version/);
  });

  it('accepts exactly 1000 entries of 200 characters', async () => {
    const packages = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(200, 'x'));
    expect((await scan({ packages })).meta.total).toBe(0);
  });

  it('rejects non-strings, a bad severityMin and a bad since', async () => {
    await expectBadRequest({ packages: [1] }, /String cannot represent a non string value/);
    await expectBadRequest({ packages: ['a'], severityMin: 'severe' }, /Severity/);
    await expectBadRequest({ packages: ['a'], since: 'yesterday' }, /since must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time/);
    await expectBadRequest({ packages: ['a'], since: '2024-13-01' }, /since must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time/);
  });
});

describe('POST /api/v1/scan', () => {
  const post = (body: unknown, init: RequestInit = {}) =>
    t.fetch('/api/v1/scan', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });

  it('takes the stack as top-level JSON keys and answers {data, meta} like GraphQL', async () => {
    const res = await post({ packages: ['langchain@0.0.200'], vendors: ['OpenAI'], severityMin: 'info', since: '2020-01-01' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual(await scan({ packages: ['langchain@0.0.200'], vendors: ['OpenAI'], severityMin: 'info', since: '2020-01-01' }));
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(named('lc236', 'lc225', 'lc0111', 'news'));
    expect(body.meta).toEqual({ total: 4, bySeverity: { critical: 1, high: 1, medium: 0, low: 1, info: 1 } });
    expect(Object.keys(body.data[0]).sort()).toEqual(['cveId', 'id', 'matchedPackages', 'matchedVendors', 'severity', 'title']);
  });

  it('a vendor-only scan works', async () => {
    const res = await post({ vendors: ['ollama'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: [
        { id: ids.ollama, title: 'GHSA-8hqg-whrw-pv92 advisory', severity: 'medium', cveId: 'CVE-2024-37032', matchedPackages: [], matchedVendors: ['ollama'] },
      ],
      meta: { total: 1, bySeverity: { critical: 0, high: 0, medium: 1, low: 0, info: 0 } },
    });
  });

  it('bad bodies are 400 envelopes', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /at least one entry in packages or vendors/],
      [{ packages: [], vendors: [] }, /at least one entry/],
      [[], /must be a JSON object/],
      ['{"packages": [', /JSON/],
      [{ packages: [1, 2] }, /packages must be a string/],
      [{ vendors: [{ name: 'x' }] }, /vendors must be a string/],
      [{ packages: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, /at most 1000/],
      [{ packages: ['x'.repeat(201)] }, /longer than 200 characters/],
      [{ packages: ['a'], severityMin: 'severe' }, /severityMin must be one of: critical, high, medium, low, info/],
      // An empty string is a value to check, not an absent one (GraphQL would word the refusal).
      [{ packages: ['a'], severityMin: '' }, /^severityMin must be one of: critical, high, medium, low, info$/],
      [{ packages: ['a'], since: 'yesterday' }, /since must be a date/],
      [{ packages: ['pkg:npm/'] }, /not a valid package URL/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const envelope = await res.json();
      expect(envelope, JSON.stringify(body)).toEqual({ error: { message: expect.stringMatching(message), status: 400 } });
    }
  });

  it('only POST is routed: GET is a 405 naming it', async () => {
    const res = await t.fetch('/api/v1/scan?packages=langchain');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await res.json()).error.status).toBe(405);
  });
});
