// GET /api/issues/export through HTTP on a real database: headers, RFC 4180 output that a real CSV
// parser reads back to exactly the stored values (commas, quotes, newlines, formula cells), keyset
// paging across ties, and only served issues.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { csvColumns } from '../../src/csv-export/route.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { insertIssues, makeIssue } from '../helpers/issues.js';

let t: TestApp;

const tricky = makeIssue({
  naturalKey: 'tricky',
  title: 'Commas, "quotes" and\nnewlines\r\nin one title',
  headline: '=HYPERLINK("http://evil.example","click")',
  summary: '+1 formula; -2 minus; @SUM(A1) at',
  sourceUrl: 'https://example.org/a,b?c="d"',
  publishedAt: new Date('2024-05-06T07:08:09.123Z'),
  severity: 'critical',
  cvssSeverity: 'critical',
  cvssScore: '9.8',
  labels: ['security', 'privacy'],
  cveId: 'CVE-2024-12345',
  cweIds: ['CWE-74', 'CWE-94'],
  affectedPackages: ['langchain@<0.0.236 (fixed: 0.0.236)', '@scope/pkg@>=1.0.0, <1.2.0 (fixed: 1.2.0)'],
  affectedPackageRefs: ['PyPI:langchain', 'npm:@scope/pkg'],
  affectedVendors: ['LangChain'],
  affectedVendorsRaw: ['\tLangChain AI', '\rcarriage'],
  packageNames: ['langchain', '@scope/pkg'],
  vendorKeys: ['langchain', '\tlangchain ai', '\rcarriage'],
  solution: '-Upgrade to 0.0.236.',
  attackType: ['prompt_injection', 'other'],
  cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  attackVector: 'network',
  epssScore: 0.00123,
  epssCheckedAt: new Date('2024-06-01T00:00:00.000Z'),
  advisoryAliases: ['GHSA-57fc-8q82-gfp3'],
  affectedPackagesSource: 'ghsa',
  patchAvailable: true,
  disclosureDate: new Date('2024-05-01T00:00:00.000Z'),
  capecIds: ['CAPEC-242'],
  crossRefCount: 3,
  impactType: ['confidentiality', 'integrity'],
  aiComponentTargeted: 'framework',
  llmSpecific: true,
  classifierConfidence: 0.875,
  researchCategory: null,
  atlasIds: ['AML.T0051.000'],
  owaspIds: ['LLM01:2025'],
  classification: {
    version: 'rules-2.0.0+test',
    relevant: true,
    probability: 0.875,
    modelScore: 0.7,
    reasons: [
      { kind: 'catalogue-package', detail: 'PyPI:langchain (LangChain; pypi-llm-frameworks)', weight: 4.2 },
      { kind: 'model', detail: 'w:llm+1.2', weight: -0.5 },
    ],
  },
});

/** 1,100 more, sharing five timestamps, so the 1,000-row keyset page boundary falls inside a tie broken by id. */
const bulk = Array.from({ length: 1100 }, (_, i) =>
  makeIssue({ naturalKey: `bulk-${i}`, title: `Bulk ${i}`, publishedAt: new Date(Date.UTC(2023, 0, 1 + (i % 5))), cvssScore: i % 2 ? '5.0' : null }),
);
const hidden = [
  makeIssue({ naturalKey: 'not-relevant', relevant: false }),
  makeIssue({ naturalKey: 'withdrawn', withdrawn: true }),
  makeIssue({ naturalKey: 'unprocessed', processed: false }),
];

beforeAll(async () => {
  t = await createTestApp();
  await insertIssues(t.db.prisma, [tricky, ...bulk, ...hidden] as Prisma.IssueCreateManyInput[]);
});
afterAll(async () => t?.close());

/** Undo the formula neutralising: one leading quote before = + - @ tab or CR. */
const unneutralise = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

async function exportCsv(query = '') {
  const res = await t.fetch(`/api/issues/export${query}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const records: string[][] = parse(text, { relax_column_count: false });
  return { res, text, header: records[0]!, rows: records.slice(1) };
}

describe('GET /api/issues/export', () => {
  it('answers CSV as an attachment named with the date, with the licence link', async () => {
    const { res, header } = await exportCsv();
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    // Today's date, or yesterday's if the request crossed UTC midnight.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const names = [day(Date.now()), day(Date.now() - 60_000)].map((d) => `attachment; filename="secwire-issues-${d}.csv"`);
    expect(names).toContain(res.headers.get('content-disposition'));
    expect(res.headers.get('link')).toBe('<https://creativecommons.org/licenses/by/4.0/>; rel="license"');
    expect(header).toEqual([...csvColumns]);
    // The spec's 43 fields, then when each issue last changed, its OWASP ids and the classification provenance.
    expect(header).toHaveLength(49);
    expect(header.slice(43)).toEqual([
      'modifiedAt',
      'owaspIds',
      'classificationVersion',
      'classificationProbability',
      'classificationModelScore',
      'classificationReasons',
    ]);
  });

  it('is readable cross-origin like the rest of the API', async () => {
    const res = await t.fetch('/api/issues/export', { headers: { origin: 'https://elsewhere.example' } });
    expect(res.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/elsewhere\.example)$/);
    expect(res.headers.get('access-control-allow-credentials')).not.toBe('true');
    await res.body?.cancel();
  });

  it('parses back to exactly stats.totalIssues rows, newest first, with every field intact', async () => {
    const { rows } = await exportCsv();
    const { body } = await t.graphql('{ stats { data { totalIssues } } }');
    expect(rows).toHaveLength(body.data.stats.data.totalIssues);
    expect(rows).toHaveLength(1101);

    const stored = await t.db.prisma.issue.findMany({
      where: { relevant: true, processed: true, withdrawn: false },
      orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
    });
    const expected = (issue: (typeof stored)[number], column: string): string => {
      const value = (issue as Record<string, unknown>)[column];
      if (column === 'cvssScore') return issue.cvssScore === null ? '' : issue.cvssScore.toFixed(1);
      if (value === null) return '';
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value)) return value.join('; ');
      return String(value);
    };
    expect(rows.map((r) => r[0])).toEqual(stored.map((s) => s.id));
    const storedColumns = csvColumns.slice(0, 44);
    for (const [i, row] of rows.entries()) {
      expect(row.slice(0, 44).map(unneutralise)).toEqual(storedColumns.map((c) => expected(stored[i]!, c)));
    }
  });

  it('keeps commas, quotes, newlines and values exactly, and neutralises formula cells', async () => {
    const { rows, text } = await exportCsv();
    const row = Object.fromEntries(csvColumns.map((c, i) => [c, rows[0]![i]!]));
    expect(row.title).toBe('Commas, "quotes" and\nnewlines\r\nin one title');
    expect(row.sourceUrl).toBe('https://example.org/a,b?c="d"');
    expect(row.publishedAt).toBe('2024-05-06T07:08:09.123Z');
    expect(row.cvssScore).toBe('9.8');
    expect(row.epssScore).toBe('0.00123');
    expect(row.classifierConfidence).toBe('0.875');
    expect(row.patchAvailable).toBe('true');
    expect(row.crossRefCount).toBe('3');
    expect(row.researchCategory).toBe('');
    expect(row.kevDateAdded).toBe('');
    expect(row.cweIds).toBe('CWE-74; CWE-94');
    expect(row.owaspIds).toBe('LLM01:2025');
    expect(row.classificationVersion).toBe('rules-2.0.0+test');
    expect(row.classificationProbability).toBe('0.875');
    expect(row.classificationModelScore).toBe('0.7');
    expect(row.classificationReasons).toBe('catalogue-package: PyPI:langchain (LangChain; pypi-llm-frameworks) (+4.2); model: w:llm+1.2 (-0.5)');
    expect(row.affectedPackages).toBe('langchain@<0.0.236 (fixed: 0.0.236); @scope/pkg@>=1.0.0, <1.2.0 (fixed: 1.2.0)');
    // formula cells start with a quote, so spreadsheets show them as text
    expect(row.headline).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(row.summary).toBe(`'+1 formula; -2 minus; @SUM(A1) at`);
    expect(row.solution).toBe(`'-Upgrade to 0.0.236.`);
    expect(row.affectedVendorsRaw).toBe(`'\tLangChain AI; \rcarriage`);
    // RFC 4180 on the wire: CRLF between records, quotes doubled inside quoted fields
    expect(text.startsWith(`${csvColumns.join(',')}\r\n`)).toBe(true);
    expect(text).toContain('"Commas, ""quotes"" and\nnewlines\r\nin one title"');
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('answers HEAD with the headers only, and other methods with a 405 envelope', async () => {
    const head = await t.fetch('/api/issues/export', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const post = await t.fetch('/api/issues/export', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toEqual({ error: { message: 'Method POST is not allowed on /api/issues/export; use GET, HEAD', status: 405 } });
  });

  it('the path a user guesses under /api/v1 is a 404 that names the real one, whatever its query', async () => {
    const pointer = { error: { message: 'Not found: the CSV export is /api/issues/export (outside /api/v1)', status: 404 } };
    for (const path of ['/api/v1/issues/export', '/api/v1/issues/export?severity=critical&since=2024-01-01']) {
      const res = await t.fetch(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual(pointer);
    }
    // An issue id is still an issue id.
    expect((await t.fetch('/api/v1/issues/exports')).status).toBe(404);
    expect((await (await t.fetch('/api/v1/issues/exports')).json()).error.message).not.toContain('/api/issues/export');
  });
});

describe("export filters (the list route's, parsed by the same code)", () => {
  const count = async (query: string) => (await exportCsv(query)).rows.length;

  it('narrow the export', async () => {
    expect(await count('?severity=critical')).toBe(1);
    expect(await count('?package=LangChain')).toBe(1);
    expect(await count('?vendor=langchain')).toBe(1);
    expect(await count('?label=privacy')).toBe(1);
    expect(await count('?label=privacy&label=security')).toBe(1101);
    expect(await count('?since=2024-01-01')).toBe(1);
    expect(await count('?search=QUOTES')).toBe(1);
    expect(await count('?issueType=news')).toBe(0);
    expect(await count('?confidenceMin=0.85')).toBe(1);
  });

  it('a bad filter is a 400 envelope, before any CSV is sent', async () => {
    for (const [query, message] of [
      ['?severity=severe', 'severity must be one of: critical, high, medium, low, info'],
      ['?confidenceMin=2', 'confidenceMin must be between 0 and 1'],
      ['?severity=high&severity=low', 'severity must be given at most once'],
    ]) {
      const res = await t.fetch(`/api/issues/export${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { message, status: 400 } });
    }
    const since = await t.fetch('/api/issues/export?since=soon');
    expect(since.status).toBe(400);
    expect((await since.json()).error.message).toMatch(/^since must be a date/);
  });
});
