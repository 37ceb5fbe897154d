// Scan, STIX and CSV end to end on the bundled real data (71 GitHub advisories and the native
// items), ingested through POST /api/v1/admin/ingest, then read through the public routes.
import { compare as pep440 } from '@renovatebot/pep440';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvColumns } from '../../src/csv-export/route.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, loadAdvisories, loadItems } from '../helpers/samples.js';
import { checkBundle } from '../helpers/stix.js';

let t: TestApp;
const advisories = loadAdvisories();
/** GHSA id -> issue id, for the served issues. */
const issueIdOf = new Map<string, string>();

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  const items = [...advisories, ...loadItems('atlas-case-studies.json'), ...loadItems('news-and-regulation.json')];
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify({ items }),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).data.rejected).toEqual([]);
  const served = await t.db.prisma.issue.findMany({ where: { relevant: true, processed: true, withdrawn: false }, select: { id: true, identifiers: true } });
  for (const row of served) for (const id of row.identifiers) if (id.startsWith('GHSA-')) issueIdOf.set(id, row.id);
}, 180_000);
afterAll(async () => t?.close());

const post = (body: unknown) => t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Independently of src/scan: is `version` inside one simple introduced/fixed/last_affected range of `name`? */
function affects(advisory: Record<string, any>, name: string, version: string): boolean {
  return advisory.affected.some(
    (a: any) =>
      a.package.name === name &&
      a.ranges.some((r: any) => {
        const ev = Object.assign({}, ...r.events) as Record<string, string>;
        const above = ev.introduced === '0' || pep440(version, ev.introduced!) >= 0;
        const below = ev.fixed ? pep440(version, ev.fixed) < 0 : ev.last_affected ? pep440(version, ev.last_affected) <= 0 : true;
        return above && below;
      }),
  );
}

describe('POST /api/v1/scan on the real advisories', () => {
  it('langchain@0.0.200 finds the langchain issues fixed after 0.0.200 and none fixed at or before it', async () => {
    const langchain = advisories.filter((a) => a.affected.some((x: any) => x.package.name === 'langchain') && issueIdOf.has(a.id));
    const expected = langchain.filter((a) => affects(a, 'langchain', '0.0.200')).map((a) => issueIdOf.get(a.id));
    const excluded = langchain.filter((a) => !affects(a, 'langchain', '0.0.200')).map((a) => issueIdOf.get(a.id));
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(excluded.length).toBeGreaterThanOrEqual(3);

    const res = await post({ packages: ['langchain@0.0.200'] });
    expect(res.status).toBe(200);
    const { data, meta } = await res.json();
    const found = data.map((m: { id: string }) => m.id);
    expect(new Set(found)).toEqual(new Set(expected));
    for (const id of excluded) expect(found).not.toContain(id);
    // by name: fixed 0.0.236 and last affected 0.0.225 are in; fixed 0.0.156 and last affected 0.0.171 are out
    expect(found).toContain(issueIdOf.get('GHSA-57fc-8q82-gfp3'));
    expect(found).toContain(issueIdOf.get('GHSA-7q94-qpjr-xpgm'));
    expect(found).not.toContain(issueIdOf.get('GHSA-8h5w-f6q9-wg35'));
    expect(found).not.toContain(issueIdOf.get('GHSA-7gfq-f96f-g85j'));
    expect(meta.total).toBe(found.length);
    expect(Object.values(meta.bySeverity as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(meta.total);
    for (const match of data) expect(match.matchedPackages).toEqual(['langchain@0.0.200']);
  });

  it('a purl and a newer version narrow the same way', async () => {
    const { data } = await (await post({ packages: ['pkg:pypi/langchain@0.0.330'] })).json();
    const expected = advisories.filter((a) => issueIdOf.has(a.id) && affects(a, 'langchain', '0.0.330')).map((a) => issueIdOf.get(a.id));
    expect(data.map((m: { id: string }) => m.id).sort()).toEqual(expected.sort());
    expect(expected).toContain(issueIdOf.get('GHSA-h59x-p739-982c')); // fixed 0.1.11
    const ollama = await (await post({ packages: ['pkg:golang/github.com/ollama/ollama@v0.1.30'] })).json();
    expect(ollama.data.map((m: { id: string }) => m.id)).toContain(issueIdOf.get('GHSA-8hqg-whrw-pv92'));
    const fixedOllama = await (await post({ packages: ['pkg:golang/github.com/ollama/ollama@v0.1.34'] })).json();
    expect(fixedOllama.data.map((m: { id: string }) => m.id)).not.toContain(issueIdOf.get('GHSA-8hqg-whrw-pv92'));
  });

  it('a vendor-only scan works', async () => {
    const res = await post({ vendors: ['LangChain'] });
    expect(res.status).toBe(200);
    const { data, meta } = await res.json();
    expect(meta.total).toBeGreaterThanOrEqual(10);
    for (const match of data) expect(match).toMatchObject({ matchedPackages: [], matchedVendors: ['LangChain'] });
    expect(data.map((m: { id: string }) => m.id)).toContain(issueIdOf.get('GHSA-57fc-8q82-gfp3'));
  });

  it('bad bodies are 400 envelopes', async () => {
    for (const body of [{}, { packages: 'x'.repeat(201) }, { vendors: [7] }, { packages: ['langchain'], severityMin: 'urgent' }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { message: expect.any(String), status: 400 } });
    }
  });
});

describe('STIX on the real data', () => {
  it('the bundle for 100 issues validates with zero schema errors and no dangling references', async () => {
    const res = await t.fetch('/api/v1/issues/stix?limit=100');
    expect(res.status).toBe(200);
    const bundle = await res.json();
    // One object per issue: a vulnerability, or a report for the incidents, news, research and regulation.
    const types = bundle.objects.map((o: { type: string }) => o.type);
    expect(types.filter((type: string) => type === 'vulnerability' || type === 'report')).toHaveLength(100);
    expect(types).toContain('vulnerability');
    expect(types).toContain('report');
    expect(bundle.objects.some((o: { type: string }) => o.type === 'course-of-action')).toBe(true);
    expect(
      bundle.objects.some(
        (o: { type: string; external_references?: { source_name: string }[] }) =>
          o.type === 'attack-pattern' && o.external_references?.[0]?.source_name === 'mitre-atlas',
      ),
    ).toBe(true);
    expect(checkBundle(bundle)).toEqual({ schemaErrors: [], danglingRefs: [] });
  });
});

describe('classification provenance and the taxonomy cross-walk', () => {
  it('every served issue shows in GraphQL why it was judged relevant, and REST carries none of it', async () => {
    const { data: stats } = await (await t.fetch('/api/v1/stats')).json();
    expect(stats.totalIssues).toBe(71 + 75);
    const { body } = await t.graphql(
      `{ issues(limit: 100, offset: 0) { data { classifierPromptVersion classifierConfidence classification { version relevant probability modelScore reasons { kind detail weight } } } } }`,
    );
    const { body: rest } = await t.graphql(
      `{ issues(limit: 100, offset: 100) { data { classifierPromptVersion classifierConfidence classification { version relevant probability reasons { kind weight } } } } }`,
    );
    const issues = [...body.data.issues.data, ...rest.data.issues.data];
    expect(issues).toHaveLength(146);
    for (const issue of issues) {
      const c = issue.classification;
      expect(c.relevant).toBe(true);
      expect(c.version).toBe(issue.classifierPromptVersion);
      expect(c.probability).toBeGreaterThanOrEqual(0.5);
      // The confidence is the probability to two decimals (the provenance keeps three): 0.995 may show as 1.
      expect(Math.abs(issue.classifierConfidence - c.probability)).toBeLessThanOrEqual(0.005 + 1e-9);
      // At least one piece of evidence speaks for relevance.
      expect(c.reasons.some((r: { weight: number }) => r.weight > 0)).toBe(true);
    }
    const langchain = (await (await t.fetch(`/api/v1/issues/${issueIdOf.get('GHSA-57fc-8q82-gfp3')}`)).json()).data;
    expect(Object.keys(langchain)).not.toContain('classification');
    expect(Object.keys(langchain)).not.toContain('owaspIds');
    const { body: one } = await t.graphql(`{ issue(id: "${langchain.id}") { data { classification { reasons { kind detail } } } } }`);
    expect(one.data.issue.data.classification.reasons).toContainEqual({ kind: 'catalogue-package', detail: 'PyPI:langchain (LangChain; pypi-llm-frameworks)' });
  });

  it('maps attack types to OWASP LLM Top 10 ids in GraphQL and STIX, and to ATLAS techniques', async () => {
    const { body } = await t.graphql(`{ issues(limit: 100, search: "prompt injection") { data { id attackType llmSpecific owaspIds atlasIds } } }`);
    const injections = body.data.issues.data.filter(
      (i: { attackType: string[]; llmSpecific: boolean }) => i.attackType.includes('prompt_injection') && i.llmSpecific,
    );
    expect(injections.length).toBeGreaterThan(0);
    for (const issue of injections) {
      expect(issue.owaspIds).toContain('LLM01:2025');
      expect(issue.atlasIds).toContain('AML.T0051');
    }
    const res = await t.fetch('/api/v1/issues/stix?limit=100');
    const bundle = await res.json();
    const refs = bundle.objects.flatMap((o: { type: string; external_references?: { source_name: string; external_id?: string; url?: string }[] }) =>
      o.type === 'vulnerability' ? (o.external_references ?? []) : [],
    );
    expect(refs).toContainEqual({
      source_name: 'owasp-llm-top-10-2025',
      external_id: 'LLM01:2025',
      url: 'https://genai.owasp.org/llmrisk/llm01-prompt-injection/',
      description: 'Prompt Injection',
    });
  });
});

describe('CSV of the whole dataset', () => {
  it('parses back to exactly stats.totalIssues rows with every field as the JSON API serves it', async () => {
    const res = await t.fetch('/api/issues/export');
    expect(res.status).toBe(200);
    const [header, ...rows] = parse(await res.text()) as string[][];
    expect(header).toEqual([...csvColumns]);
    const { data: stats } = await (await t.fetch('/api/v1/stats')).json();
    expect(rows).toHaveLength(stats.totalIssues);

    // The spec's columns as REST serves them, the rest (modifiedAt, OWASP ids, provenance) as GraphQL does.
    const served: Record<string, unknown>[] = [];
    for (let offset = 0; offset < stats.totalIssues; offset += 100) {
      const rest = (await (await t.fetch(`/api/v1/issues?limit=100&offset=${offset}`)).json()).data;
      const { body } = await t.graphql(
        `{ issues(limit: 100, offset: ${offset}) { data { modifiedAt owaspIds classification { version probability modelScore reasons { kind detail weight } } } } }`,
      );
      served.push(
        ...rest.map((issue: Record<string, unknown>, i: number) => {
          const { modifiedAt, owaspIds, classification: c } = body.data.issues.data[i];
          const reasons = c.reasons.map(
            (r: { kind: string; detail: string; weight: number }) => `${r.kind}: ${r.detail} (${r.weight >= 0 ? '+' : ''}${r.weight})`,
          );
          return {
            ...issue,
            modifiedAt,
            owaspIds,
            classificationVersion: c.version,
            classificationProbability: c.probability,
            classificationModelScore: c.modelScore,
            classificationReasons: reasons,
          };
        }),
      );
    }
    const asCell = (value: unknown) => (value === null || value === undefined ? '' : Array.isArray(value) ? value.join('; ') : String(value));
    const unneutralise = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
    rows.forEach((row, i) => {
      const issue = served[i]!;
      expect(Object.fromEntries(csvColumns.map((c, j) => [c, unneutralise(row[j]!)]))).toEqual(
        Object.fromEntries(csvColumns.map((c) => [c, asCell(issue[c])])),
      );
    });
  });
});

describe('one issue per event on the bundled sample', () => {
  it("serves every sample record once, and a feed of the advisories' pages adds no issue", async () => {
    const served = () =>
      t.db.prisma.issue.findMany({
        where: { relevant: true, processed: true, withdrawn: false },
        select: { id: true, naturalKey: true, cveId: true, sourceUrl: true },
      });
    const before = await served();
    expect(before).toHaveLength(146);
    expect(new Set(issueIdOf.values()).size).toBe(71);
    expect(new Set(before.map((i) => i.sourceUrl)).size).toBe(before.length);
    // Only an article (keyed by its URL) may share the CVE of another issue.
    const records = before.filter((i) => !/^https?:/.test(i.naturalKey) && i.cveId);
    expect(new Set(records.map((i) => i.cveId)).size).toBe(records.length);

    const pages = advisories.map((a) => ({
      title: `${a.summary} (${(a.aliases as string[]).find((x) => x.startsWith('CVE-')) ?? a.id})`,
      url: `https://github.com/advisories/${a.id}`,
      publishedAt: a.published,
    }));
    const ingest = async () =>
      (
        await (
          await t.fetch('/api/v1/admin/ingest', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...adminHeaders },
            body: JSON.stringify({ items: pages }),
          })
        ).json()
      ).data;
    expect(await ingest()).toMatchObject({ received: 71, created: 0, updated: 71, rejected: [] });
    expect(await ingest()).toMatchObject({ created: 0, updated: 0, unchanged: 71 });
    const after = await served();
    expect(after.map((i) => i.id).sort()).toEqual(before.map((i) => i.id).sort());
  });
});
