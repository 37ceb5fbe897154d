// STIX 2.1 export through GraphQL on a real database: every bundle validates against the OASIS
// schemas with no dangling reference, ids are stable across exports, and the mapping carries what
// docs/api.md, "STIX 2.1", lists.
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { checkBundle } from '../helpers/stix.js';

let t: TestApp;
type StixObject = { type: string; id: string; [key: string]: any };
type Bundle = { type: string; id: string; objects: StixObject[] };

const attackTypes = [
  'prompt_injection',
  'jailbreak',
  'rag_poisoning',
  'data_extraction',
  'pii_leakage',
  'supply_chain',
  'denial_of_service',
  'other',
  'model_inversion',
];
const atlasIds = ['AML.T0051', 'AML.T0051.000', 'AML.T0054', 'AML.T0010', 'AML.T9999'];
const solutions = ['Upgrade to 0.0.236 or later.', 'N/A: no mitigation is known yet.', null, '  '];

/** 120 served issues covering every shape the mapping branches on, plus some never served. */
function fixtures(): Prisma.IssueCreateManyInput[] {
  const issues = Array.from({ length: 120 }, (_, i) =>
    makeIssue({
      naturalKey: `stix-${i}`,
      title: `Issue ${i}: "quoted", ünïcödé & <tags>`,
      headline: i % 3 === 0 ? `Headline ${i}` : null,
      summary: i % 4 === 0 ? null : `Summary of issue ${i}.\nSecond line.`,
      sourceUrl: i % 10 === 0 ? `https://example.org/path with spaces/${i}?q=a b` : `https://github.com/advisories/item-${i}`,
      publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 3600_000),
      severity: (['critical', 'high', 'medium', 'low', 'info'] as const)[i % 5],
      issueType: (['vulnerability', 'incident', 'news', 'regulatory', 'research'] as const)[i % 5],
      labels: i % 2 ? ['security', 'research'] : [],
      cveId: i % 2 === 0 ? `CVE-2024-${String(1000 + i)}` : null,
      cweIds: i % 3 === 0 ? ['CWE-74', 'CWE-94'] : [],
      capecIds: i % 5 === 0 ? ['CAPEC-242'] : [],
      advisoryAliases: i % 4 === 1 ? [`GHSA-57fc-8q82-gfp${(i % 8) + 2}`, `PYSEC-2024-${i}`, 'CVE-2023-36188'] : [],
      attackType: [attackTypes[i % attackTypes.length]!, ...(i % 7 === 0 ? ['prompt_injection'] : [])],
      atlasIds: i % 2 === 0 ? [atlasIds[i % atlasIds.length]!] : [],
      solution: solutions[i % solutions.length],
      classifierConfidence: (i % 11) / 10,
    }),
  );
  issues.push(makeIssue({ naturalKey: 'stix-hidden', relevant: false, publishedAt: new Date('2030-01-01T00:00:00Z') }));
  issues.push(makeIssue({ naturalKey: 'stix-withdrawn', withdrawn: true, publishedAt: new Date('2030-01-01T00:00:00Z') }));
  return issues;
}

beforeAll(async () => {
  t = await createTestApp();
  await t.db.prisma.issue.createMany({ data: fixtures() });
});
afterAll(async () => t?.close());

const STIX = `query Stix($severity: Severity, $issueType: IssueType, $since: String, $limit: Int) {
  stixBundle(severity: $severity, issueType: $issueType, since: $since, limit: $limit)
}`;

async function exportBundle(variables: Record<string, unknown> = {}): Promise<Bundle> {
  const { status, body } = await t.graphql(STIX, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.stixBundle as Bundle;
}

const ofType = (bundle: Bundle, type: string) => bundle.objects.filter((o) => o.type === type);
/** What each issue becomes (docs/api.md, "STIX 2.1"): only vulnerabilities are vulnerability objects. */
const stixTypes: Record<string, string> = { vulnerability: 'vulnerability', incident: 'report', news: 'report', regulatory: 'report', research: 'report' };
/** The one object per issue, in bundle order. */
const issueObjects = (bundle: Bundle) => bundle.objects.filter((o) => o.type === 'vulnerability' || o.type === 'report');

describe('STIX 2.1 validity', () => {
  it('the bundle for 100 issues validates with zero schema errors and no dangling references', async () => {
    const bundle = await exportBundle({ limit: 100 });
    expect(issueObjects(bundle)).toHaveLength(100);
    expect([ofType(bundle, 'vulnerability').length, ofType(bundle, 'report').length]).toEqual([20, 80]);
    expect(checkBundle(bundle)).toEqual({ schemaErrors: [], danglingRefs: [] });
  });

  it('every filtered bundle validates too', async () => {
    for (const variables of [{}, { severity: 'critical' }, { issueType: 'news', limit: 5 }, { since: '2024-01-05' }, { since: '2031-01-01' }]) {
      expect(checkBundle(await exportBundle(variables)), JSON.stringify(variables)).toEqual({ schemaErrors: [], danglingRefs: [] });
    }
  });

  it('the checks catch broken bundles (so the assertions above can fail)', async () => {
    const bundle = await exportBundle({ limit: 5 }); // five issue types, so one vulnerability
    const withoutIdentity = { ...bundle, objects: bundle.objects.filter((o) => o.type !== 'identity') };
    expect(checkBundle(withoutIdentity).danglingRefs.length).toBeGreaterThan(0);
    const badId = { ...bundle, objects: bundle.objects.map((o) => (o.type === 'vulnerability' ? { ...o, id: 'vulnerability--not-a-uuid' } : o)) };
    expect(checkBundle(badId).schemaErrors.length).toBeGreaterThan(0);
    const emptyLabels = { ...bundle, objects: bundle.objects.map((o) => (o.type === 'vulnerability' ? { ...o, labels: [] } : o)) };
    expect(checkBundle(emptyLabels).schemaErrors.length).toBeGreaterThan(0);
  });
});

describe('ids', () => {
  // The namespace the README documents, written out so the test does not take it from the code.
  const objectId = (issue: { id: string; issueType: string }) => `${stixTypes[issue.issueType]}--${uuidv5(issue.id, 'cf3099ba-b731-4a7a-bcec-5ab36da748e7')}`;
  /** The ids the bundle must hold: one per served issue of the filter, newest first, as the list route pages. */
  async function expectedIds(where: Prisma.IssueWhereInput, take: number) {
    const issues = await t.db.prisma.issue.findMany({
      where: { relevant: true, processed: true, withdrawn: false, ...where },
      orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
      take,
    });
    return new Set(issues.map((i) => objectId(i)));
  }

  it('are the UUIDv5 of each issue id: stable across exports and independent of what else is exported', async () => {
    const first = await exportBundle({ limit: 100 });
    expect(await exportBundle({ limit: 100 })).toEqual(first);
    expect(new Set(issueObjects(first).map((v) => v.id))).toEqual(await expectedIds({}, 100));
    const narrow = await exportBundle({ severity: 'high' });
    const high = await expectedIds({ severity: 'high' }, 50);
    expect(high.size).toBe(24);
    expect(new Set(issueObjects(narrow).map((v) => v.id))).toEqual(high);
    expect(new Set(ofType(narrow, 'identity').map((o) => o.id))).toEqual(new Set(ofType(first, 'identity').map((o) => o.id)));
  });

  it("survive edits, which move modified to the issue's modifiedAt", async () => {
    const issue = await t.db.prisma.issue.findFirstOrThrow({ where: { naturalKey: 'stix-102' } });
    const find = (bundle: Bundle) => issueObjects(bundle).find((v) => v.id === objectId(issue))!;
    const before = find(await exportBundle({ limit: 100 }));
    const edited = await t.db.prisma.issue.update({ where: { id: issue.id }, data: { summary: 'Edited summary.', modifiedAt: new Date() } });
    const after = find(await exportBundle({ limit: 100 }));
    expect(after.description).toBe('Edited summary.');
    expect(after.modified > before.modified).toBe(true);
    expect(after.modified).toBe(edited.modifiedAt.toISOString());
  });
});

describe('mapping', () => {
  let bundle: Bundle;
  let issues: Awaited<ReturnType<typeof t.db.prisma.issue.findMany>>;
  beforeAll(async () => {
    bundle = await exportBundle({ limit: 100 });
    issues = await t.db.prisma.issue.findMany({ where: { relevant: true, withdrawn: false }, orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }], take: 100 });
  });
  const byId = (id: string) => bundle.objects.find((o) => o.id === id);
  const relationshipsTo = (id: string, type: string) => ofType(bundle, 'relationship').filter((r) => r.target_ref === id && r.relationship_type === type);
  /** What an issue's object points at: a vulnerability through `kind` relationships, a report through object_refs. */
  const linked = (o: StixObject, kind: 'targets' | 'mitigates', type: string) =>
    (o.type === 'report' ? (o.object_refs as string[]) : relationshipsTo(o.id, kind).map((r) => r.source_ref as string))
      .map((id) => byId(id)!)
      .filter((x) => x.type === type);

  it('one identity (a system), TLP:CLEAR and a CC BY 4.0 marking on every object', () => {
    const [identity] = ofType(bundle, 'identity');
    expect(ofType(bundle, 'identity')).toHaveLength(1);
    expect(identity).toMatchObject({ spec_version: '2.1', name: 'secwire', identity_class: 'system' });
    const markings = ofType(bundle, 'marking-definition');
    expect(markings.map((m) => m.name).sort()).toEqual(['CC-BY-4.0', 'TLP:CLEAR']);
    expect(markings.find((m) => m.name === 'TLP:CLEAR')!.id).toBe('marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487');
    expect(markings.find((m) => m.name === 'CC-BY-4.0')!.definition.statement).toContain('https://creativecommons.org/licenses/by/4.0/');
    for (const object of bundle.objects.filter((o) => o.type !== 'marking-definition')) {
      expect(object.object_marking_refs).toEqual(
        markings.map((m) => m.id).sort((a) => (a === 'marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487' ? -1 : 1)),
      );
      expect(object.created_by_ref).toBe(identity!.id);
    }
  });

  it('an object per issue (a vulnerability, or a report for what is not one): CVE name, description from the summary, CVE/CWE/CAPEC/source/alias references', () => {
    const vulnerabilities = issueObjects(bundle);
    expect(vulnerabilities).toHaveLength(issues.length);
    for (const [i, issue] of issues.entries()) {
      const v = vulnerabilities[i]!;
      expect(v.type).toBe(stixTypes[issue.issueType]);
      if (v.type === 'report') expect(v).toMatchObject({ published: issue.publishedAt.toISOString(), report_types: ['threat-report'] });
      expect(v.name).toBe(issue.cveId ?? issue.headline ?? issue.title);
      expect(v.description).toBe(issue.summary ?? undefined);
      expect(v.created).toBe(issue.publishedAt.toISOString());
      expect(v.labels).toEqual([`severity:${issue.severity}`, `issue-type:${issue.issueType}`, ...issue.labels]);
      const refs = v.external_references as { source_name: string; external_id?: string; url?: string }[];
      if (issue.cveId) expect(refs[0]).toEqual({ source_name: 'cve', external_id: issue.cveId });
      expect(refs.find((r) => r.source_name === 'source')!.url).toBe(new URL(issue.sourceUrl).href);
      for (const cwe of issue.cweIds)
        expect(refs).toContainEqual({ source_name: 'cwe', external_id: cwe, url: `https://cwe.mitre.org/data/definitions/${cwe.slice(4)}.html` });
      for (const capec of issue.capecIds) expect(refs).toContainEqual(expect.objectContaining({ source_name: 'capec', external_id: capec }));
      for (const alias of issue.advisoryAliases) expect(refs.some((r) => r.external_id === alias)).toBe(true);
      expect(new Set(refs.map((r) => `${r.source_name}|${r.external_id ?? r.url}`)).size).toBe(refs.length);
    }
    const ghsa = vulnerabilities.flatMap((v) => v.external_references).find((r: any) => r.source_name === 'ghsa');
    expect(ghsa.url).toBe(`https://github.com/advisories/${ghsa.external_id}`);
  });

  it('attack patterns per attack type and ATLAS technique, shared, each targeting its vulnerabilities', () => {
    const patterns = ofType(bundle, 'attack-pattern');
    expect(new Set(patterns.map((p) => p.id)).size).toBe(patterns.length);
    const promptInjection = patterns.find((p) => p.name === 'Prompt injection')!;
    expect(promptInjection).toBeDefined();
    expect(patterns.find((p) => p.name === 'Model inversion')).toBeDefined();
    expect(patterns.find((p) => p.name === 'Other')).toBeUndefined();
    const atlas = patterns.find((p) => p.name === 'LLM Prompt Injection')!;
    expect(atlas.external_references).toEqual([{ source_name: 'mitre-atlas', external_id: 'AML.T0051', url: 'https://atlas.mitre.org/techniques/AML.T0051' }]);
    expect(atlas.kill_chain_phases).toEqual([{ kill_chain_name: 'mitre-atlas', phase_name: 'execution' }]);
    expect(patterns.find((p) => p.name === 'LLM Prompt Injection: Direct')).toBeDefined();
    expect(patterns.find((p) => p.name === 'AML.T9999')).toBeDefined();
    for (const [i, issue] of issues.entries()) {
      const v = issueObjects(bundle)[i]!;
      const targeting = linked(v, 'targets', 'attack-pattern');
      const expected = new Set([...issue.attackType.filter((a) => a !== 'other'), ...issue.atlasIds]);
      expect(targeting).toHaveLength(expected.size);
    }
  });

  it('a course of action only for real solutions, mitigating its vulnerability', () => {
    for (const [i, issue] of issues.entries()) {
      const v = issueObjects(bundle)[i]!;
      const mitigations = linked(v, 'mitigates', 'course-of-action');
      if (issue.solution && issue.solution.trim() && !issue.solution.startsWith('N/A')) {
        expect(mitigations).toHaveLength(1);
        expect(mitigations[0]).toMatchObject({ type: 'course-of-action', description: issue.solution });
      } else {
        expect(mitigations).toHaveLength(0);
      }
    }
  });
});

describe('filters and limits', () => {
  const count = async (variables: Record<string, unknown>) => issueObjects(await exportBundle(variables)).length;

  it('limit defaults to 50, is clamped to 100, and below 1 is a 400', async () => {
    expect(await count({})).toBe(50);
    expect(await count({ limit: 7 })).toBe(7);
    expect(await count({ limit: 1000 })).toBe(100);
    const { body } = await t.graphql(STIX, { limit: 0 });
    expect(body.errors?.[0]).toMatchObject({ message: 'limit must be at least 1', extensions: { code: 'BAD_REQUEST' } });
  });

  it('severity, issueType and since filter; non-served issues never appear', async () => {
    expect(await count({ severity: 'critical', limit: 100 })).toBe(24);
    expect(await count({ issueType: 'news', limit: 100 })).toBe(24);
    // issues are an hour apart from 2024-01-01T00:00Z; "after" is strict
    expect(await count({ since: '2024-01-05T00:00:00Z', limit: 100 })).toBe(119 - 96);
    expect(await count({ since: '2024-01-05', limit: 100 })).toBe(23);
    const { body } = await t.graphql(STIX, { since: 'last week' });
    expect(body.errors?.[0]?.message).toMatch(/since must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time/);
  });
});

describe('GET /api/v1/issues/stix', () => {
  it('answers the bundle itself (no envelope), the same as GraphQL, with the licence link', async () => {
    const res = await t.fetch('/api/v1/issues/stix?limit=100');
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe('<https://creativecommons.org/licenses/by/4.0/>; rel="license"');
    const bundle = await res.json();
    expect(bundle.type).toBe('bundle');
    expect(bundle.id).toMatch(/^bundle--/);
    expect(bundle).toEqual(await exportBundle({ limit: 100 }));
    expect(issueObjects(bundle)).toHaveLength(100);
    expect(checkBundle(bundle)).toEqual({ schemaErrors: [], danglingRefs: [] });
  });

  it('takes severity, issueType, since and limit from the query string, limit defaulting to 50 and clamped to 100', async () => {
    const vulnerabilities = async (query: string) => issueObjects(await (await t.fetch(`/api/v1/issues/stix${query}`)).json()).length;
    expect(await vulnerabilities('')).toBe(50);
    expect(await vulnerabilities('?limit=500')).toBe(100);
    expect(await vulnerabilities('?severity=critical&limit=100')).toBe(24);
    expect(await vulnerabilities('?issueType=news&severity=info&limit=100')).toBe(0);
    expect(await vulnerabilities('?since=2024-01-05&limit=100')).toBe(23);
  });

  it('bad parameters are 400 envelopes', async () => {
    for (const [query, message] of [
      ['?limit=0', 'limit must be at least 1'],
      ['?limit=ten', 'limit must be an integer'],
      ['?severity=severe', 'severity must be one of: critical, high, medium, low, info'],
      ['?issueType=blog', 'issueType must be one of: vulnerability, incident, news, regulatory, research'],
    ]) {
      const res = await t.fetch(`/api/v1/issues/stix${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toEqual({ error: { message, status: 400 } });
    }
    const since = await t.fetch('/api/v1/issues/stix?since=tomorrow');
    expect(since.status).toBe(400);
    expect((await since.json()).error.message).toMatch(/^since must be a date/);
  });
});
