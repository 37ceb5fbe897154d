// The admin routes through REST (SOFA inside Yoga): body shapes, the error envelope, the bearer
// key, and what the read routes serve afterwards, checked against the spec's Issue table as JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, loadAdvisories, loadAdvisory } from '../helpers/samples.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
});
afterAll(async () => t?.close());

function post(path: string, body: unknown, headers: Record<string, string> = adminHeaders) {
  return t.fetch(`/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /api/v1/admin/ingest', () => {
  it('takes one OSV record as the body', async () => {
    const res = await post('/admin/ingest', loadAdvisory('GHSA-2jxw-4hm4-6w87'));
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ received: 1, created: 1, updated: 0, unchanged: 0, rejected: [] });
    expect(data.ids).toHaveLength(1);
  });

  it('takes an array of OSV records and native items, reporting rejects by index', async () => {
    const res = await post('/admin/ingest', [
      loadAdvisory('GHSA-2jxw-4hm4-6w87'),
      { title: 'LLM prompt injection in a chat plugin', url: 'https://example.org/p', publishedAt: '2024-02-01', type: 'news' },
      { title: 'missing url', publishedAt: '2024-02-01' },
    ]);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ received: 3, created: 1, unchanged: 1, updated: 0 });
    expect(data.rejected).toEqual([{ index: 2, message: expect.stringMatching(/^invalid item: url: /) }]);
  });

  it('takes {items: [...]}', async () => {
    const res = await post('/admin/ingest', { items: loadAdvisories() });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ received: 71, created: 70, unchanged: 1, rejected: [] });
  });

  it('answers the error envelope for a body that is not JSON, or empty', async () => {
    for (const body of ['{"items": [', '']) {
      const res = await post('/admin/ingest', body);
      expect(res.status).toBe(400);
      const envelope = await res.json();
      expect(envelope).toEqual({ error: { message: expect.any(String), status: 400 } });
    }
  });

  it('answers 401 without the right bearer key, and always when no key is configured', async () => {
    const item = { title: 'LLM jailbreak write-up', url: 'https://example.org/unauthorised', publishedAt: '2024-02-02', type: 'research' };
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${adminKey}` }] as Record<string, string>[]) {
      const res = await post('/admin/ingest', item, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { message: 'Missing or invalid admin bearer key', status: 401 } });
    }
    const closed = await createTestApp({}, t.db);
    try {
      const res = await closed.fetch('/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminHeaders },
        body: JSON.stringify(item),
      });
      expect(res.status).toBe(401);
    } finally {
      await closed.close();
    }
    expect(await t.db.prisma.issue.count({ where: { sourceUrl: item.url } })).toBe(0);
  });
});

describe('POST /api/v1/admin/digests', () => {
  it('generates the digest of a date, which GET /api/v1/digest/latest then serves', async () => {
    const res = await post('/admin/digests', { date: '2024-01-22' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      date: '2024-01-22',
      content: expect.stringContaining('SQL injection in llama-index (CVE-2024-23751)'),
      issueCount: 1,
      generatedAt: expect.stringMatching(/Z$/),
    });
    const latest = await t.fetch('/api/v1/digest/latest');
    expect((await latest.json()).data.date).toBe('2024-01-22');
  });

  it('answers 400 for a bad date and 401 without the key', async () => {
    const bad = await post('/admin/digests', { date: '2024-13-01' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { message: 'date must be a calendar date written YYYY-MM-DD', status: 400 } });
    // Year 0 is a valid ISO date that PostgreSQL cannot store: a 400, not a masked 500.
    const yearZero = await post('/admin/digests', { date: '0000-01-01' });
    expect(yearZero.status).toBe(400);
    expect(await yearZero.json()).toEqual({ error: { message: 'date must be between 1970-01-01 and 9999-12-31', status: 400 } });
    const anonymous = await post('/admin/digests', {}, {});
    expect(anonymous.status).toBe(401);
    // The key comes first: a bad date without it is a 401 too.
    const anonymousBad = await post('/admin/digests', { date: '2024-13-01' }, {});
    expect(await anonymousBad.json()).toEqual({ error: { message: 'Missing or invalid admin bearer key', status: 401 } });
  });
});

// The spec's table as JSON types; `?` marks nullable.
const spec: Record<string, string> = {
  id: 'string',
  title: 'string',
  headline: 'string?',
  summary: 'string?',
  sourceUrl: 'string',
  publishedAt: 'timestamp',
  severity: 'string',
  cvssSeverity: 'string?',
  cvssScore: 'decimal?',
  labels: 'string[]',
  issueType: 'string',
  cveId: 'string?',
  cweIds: 'string[]?',
  affectedPackages: 'string[]?',
  affectedPackageRefs: 'string[]?',
  affectedVendors: 'string[]',
  affectedVendorsRaw: 'string[]',
  classifierModel: 'string',
  classifierPromptVersion: 'string',
  solution: 'string?',
  attackType: 'string[]',
  cvssVector: 'string?',
  attackVector: 'string?',
  attackComplexity: 'string?',
  privilegesRequired: 'string?',
  userInteraction: 'string?',
  exploitMaturity: 'string?',
  epssScore: 'number?',
  epssCheckedAt: 'timestamp?',
  kevDateAdded: 'string?',
  advisoryAliases: 'string[]?',
  affectedPackagesSource: 'string?',
  patchAvailable: 'boolean?',
  disclosureDate: 'timestamp?',
  capecIds: 'string[]?',
  crossRefCount: 'integer',
  attackSophistication: 'string',
  impactType: 'string[]?',
  aiComponentTargeted: 'string?',
  llmSpecific: 'boolean',
  classifierConfidence: 'number',
  researchCategory: 'string?',
  atlasIds: 'string[]?',
};
const is: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  timestamp: (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v),
  decimal: (v) => typeof v === 'string' && /^\d+\.\d$/.test(v),
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  'string[]': (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'),
};

describe('served through GET /api/v1/issues', () => {
  it('every ingested advisory has every field of the spec table, well typed', async () => {
    const res = await t.fetch(`/api/v1/issues?limit=100&issueType=vulnerability`);
    const { data, meta } = await res.json();
    expect(meta.total).toBe(71);
    for (const issue of data) {
      for (const [field, type] of Object.entries(spec)) {
        expect(field in issue, `${issue.cveId}: ${field} missing`).toBe(true);
        const value = issue[field];
        if (value === null) expect(type.endsWith('?'), `${issue.cveId}: ${field} null`).toBe(true);
        else expect(is[type.replace('?', '')]!(value), `${issue.cveId}: ${field} = ${JSON.stringify(value)}`).toBe(true);
      }
      expect(['critical', 'high', 'medium', 'low', 'info']).toContain(issue.severity);
      if (issue.cvssSeverity !== null) expect(issue.cvssSeverity).toBe(issue.cvssSeverity.toLowerCase());
    }
  });
});
