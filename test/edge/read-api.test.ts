// The read API through HTTP, as a new REST client and a GraphQL client would probe it: every
// route, every filter, the 400s and 404s, ordering and paging, and REST/GraphQL agreement.
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { schema } from '../../src/schema/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue, specIssueFields } from '../helpers/issues.js';

let t: TestApp;

/** An issue as ingestion would store it: the lower-cased search, vendor and package columns filled in. */
function issue(fields: Partial<Prisma.IssueCreateManyInput> & { title: string }): Prisma.IssueCreateManyInput {
  const base = makeIssue(fields);
  const aliases = (base.advisoryAliases as string[] | undefined) ?? [];
  return {
    ...base,
    searchText: [base.title, base.headline, base.summary, base.cveId, ...aliases].filter(Boolean).join('\n').toLowerCase(),
    vendorKeys: [...((base.affectedVendors as string[]) ?? []), ...((base.affectedVendorsRaw as string[]) ?? [])].map((v) => v.toLowerCase()),
    ...fields,
  };
}

const at = (iso: string) => new Date(iso);

// Named fixtures; `tie-*` issues all share one publishedAt for the paging test.
const fixtures: Record<string, Prisma.IssueCreateManyInput> = {
  langchain: issue({
    title: 'Prompt injection in LangChain agents',
    headline: 'LangChain agent hijack',
    summary: 'Crafted documents make the agent run tools.',
    cveId: 'CVE-2025-1111',
    advisoryAliases: ['GHSA-aaaa-bbbb-cccc'],
    severity: 'critical',
    cvssSeverity: 'critical',
    cvssScore: 9.8,
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    issueType: 'vulnerability',
    labels: ['security'],
    affectedPackages: ['langchain@<0.1.0 (fixed: 0.1.0)'],
    affectedPackageRefs: ['pypi:langchain'],
    packageNames: ['langchain'],
    affectedVendors: ['LangChain'],
    affectedVendorsRaw: ['LangChain Inc.'],
    attackType: ['prompt_injection'],
    classifierConfidence: 0.95,
    llmSpecific: true,
    publishedAt: at('2025-03-01T10:00:00.000Z'),
    epssScore: 0.12,
    epssCheckedAt: at('2025-03-02T00:00:00.000Z'),
    exploitMaturity: 'active',
  }),
  openai: issue({
    title: 'OpenAI plugin leaks conversation data',
    summary: 'A privacy problem in a ChatGPT plugin.',
    severity: 'high',
    issueType: 'incident',
    labels: ['privacy', 'security'],
    affectedVendors: ['OpenAI'],
    affectedVendorsRaw: ['ChatGPT'],
    classifierConfidence: 0.7,
    publishedAt: at('2025-02-20T08:30:00.000Z'),
  }),
  policy: issue({
    title: 'EU AI Act guidance published',
    summary: 'Regulators publish 100% of the guidance_notes.',
    severity: 'info',
    issueType: 'regulatory',
    labels: ['policy'],
    classifierConfidence: 0.5,
    publishedAt: at('2025-01-31T00:00:00.000Z'),
  }),
  research: issue({
    title: 'Jailbreaks transfer across models',
    severity: 'low',
    issueType: 'research',
    labels: ['research', 'safety'],
    researchCategory: 'peer_reviewed',
    affectedPackageRefs: ['npm:@scope/Some-Pkg'],
    packageNames: ['@scope/some-pkg'],
    classifierConfidence: 0.6,
    publishedAt: at('2025-01-31T00:00:00.001Z'),
  }),
  notRelevant: issue({ title: 'Unrelated CVE in a web server', relevant: false, publishedAt: at('2025-03-05T00:00:00.000Z') }),
  withdrawn: issue({ title: 'Withdrawn advisory', withdrawn: true, publishedAt: at('2025-03-05T00:00:00.000Z') }),
  unprocessed: issue({ title: 'Not classified yet', processed: false, publishedAt: at('2025-03-05T00:00:00.000Z') }),
};
const tieTime = at('2024-06-01T12:00:00.000Z');
for (let i = 0; i < 23; i++)
  fixtures[`tie-${i}`] = issue({ title: `Tied issue ${i}`, labels: ['industry'], severity: 'medium', publishedAt: tieTime, classifierConfidence: 0.3 });

const served = Object.keys(fixtures).filter((k) => !['notRelevant', 'withdrawn', 'unprocessed'].includes(k));
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ logLevel: 'silent' });
  for (const [name, data] of Object.entries(fixtures)) {
    ids[name] = (await t.db.prisma.issue.create({ data: data as Prisma.IssueCreateInput, select: { id: true } })).id;
  }
});
afterAll(async () => t?.close());

async function get(path: string, init?: RequestInit) {
  const res = await t.fetch(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The names of the fixtures a list response holds, in order. */
const names = (body: { data: { id: string }[] }) => body.data.map((i) => Object.keys(ids).find((n) => ids[n] === i.id));
/** Expected order: publishedAt desc, then id desc. */
function ordered(keys: string[]) {
  return [...keys].sort((a, b) => {
    const d = +fixtures[b]!.publishedAt! - +fixtures[a]!.publishedAt!;
    return d !== 0 ? d : ids[b]! < ids[a]! ? -1 : ids[b]! > ids[a]! ? 1 : 0;
  });
}
async function list(query: string) {
  const { status, body } = await get(`/api/v1/issues${query}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}
async function listNames(query: string) {
  return names(await list(`${query}${query.includes('?') ? '&' : '?'}limit=100`));
}

describe('GET /api/v1/issues', () => {
  it('pages served issues newest first with {data, meta: {total, limit, offset}}', async () => {
    const body = await list('');
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.meta).toEqual({ total: served.length, limit: 20, offset: 0 });
    expect(names(body)).toEqual(ordered(served).slice(0, 20));
  });

  it('serves every spec field, timestamps with milliseconds and Z, cvssScore as a string, nulls present', async () => {
    const body = await list('?search=CVE-2025-1111');
    expect(body.data).toHaveLength(1);
    const item = body.data[0];
    expect(Object.keys(item).sort()).toEqual([...specIssueFields].sort());
    expect(item).toMatchObject({
      id: ids.langchain,
      publishedAt: '2025-03-01T10:00:00.000Z',
      epssCheckedAt: '2025-03-02T00:00:00.000Z',
      cvssScore: '9.8',
      cvssSeverity: 'critical',
      severity: 'critical',
      issueType: 'vulnerability',
      kevDateAdded: null,
      disclosureDate: null,
      labels: ['security'],
    });
  });

  it('never serves non-relevant, unprocessed or withdrawn issues', async () => {
    const all = await listNames('');
    expect(all).toHaveLength(served.length);
    for (const hidden of ['notRelevant', 'withdrawn', 'unprocessed']) expect(all).not.toContain(hidden);
    expect((await list('?search=withdrawn')).meta.total).toBe(0);
  });

  describe('filters', () => {
    it('knownExploited (not a spec parameter): true keeps the issues exploitation is under way for, false the others', async () => {
      expect(await listNames('?knownExploited=true')).toEqual(['langchain']);
      const others = await listNames('?knownExploited=false');
      expect(others).toHaveLength(served.length - 1);
      expect(others).not.toContain('langchain');
      expect(await listNames('?knownExploited=true&severity=high')).toEqual([]);
      expect(await get('/api/v1/issues?knownExploited=yes')).toMatchObject({
        status: 400,
        body: { error: { message: 'knownExploited must be true or false', status: 400 } },
      });
      const { body } = await t.graphql('{ issues(knownExploited: true) { data { id } meta { total } } }');
      expect(body.data.issues).toEqual({ data: [{ id: ids.langchain }], meta: { total: 1 } });
    });

    it('search: case-insensitive over title, headline, summary, CVE id and aliases', async () => {
      expect(await listNames('?search=PROMPT%20injection')).toEqual(['langchain']);
      expect(await listNames('?search=agent%20hijack')).toEqual(['langchain']);
      expect(await listNames('?search=chatgpt%20plugin')).toEqual(['openai']);
      expect(await listNames('?search=cve-2025-1111')).toEqual(['langchain']);
      expect(await listNames('?search=ghsa-AAAA')).toEqual(['langchain']);
      expect(await listNames('?search=nothing-like-this')).toEqual([]);
    });

    it('search: % and _ are literal characters, not wildcards', async () => {
      expect(await listNames('?search=100%25')).toEqual(['policy']);
      expect(await listNames('?search=guidance_notes')).toEqual(['policy']);
      expect(await listNames('?search=%25%25')).toEqual([]);
      expect(await listNames('?search=e_u')).toEqual([]);
    });

    it('search: blank means no filter', async () => {
      expect((await list('?search=%20%20')).meta.total).toBe(served.length);
    });

    it('search: words match in any form and order, as phrases, with or and with exclusions', async () => {
      expect(await listNames('?search=injections')).toEqual(['langchain']);
      expect(await listNames('?search=hijacking%20agents')).toEqual(['langchain']);
      expect(await listNames('?search=%22agent%20hijack%22')).toEqual(['langchain']);
      expect(await listNames('?search=%22hijack%20agent%22')).toEqual([]);
      expect(await listNames('?search=jailbreaks%20or%20plugin')).toEqual(ordered(['openai', 'research']));
      expect(await listNames('?search=plugin%20-chatgpt')).toEqual([]);
      // Whatever a user types is a query, never a syntax error.
      for (const text of ['%22unbalanced', 'a%20%26%20%7C%20!', '(prompt', 'or', '-', 'the'])
        expect((await get(`/api/v1/issues?search=${text}`)).status).toBe(200);
    });

    it('search: a broad word pages newest first with the exact total, on REST and GraphQL', async () => {
      const tied = served.filter((k) => k.startsWith('tie-'));
      const pages = [];
      for (let offset = 0; offset < tied.length; offset += 5) {
        const body = await list(`?search=tied&limit=5&offset=${offset}`);
        expect(body.meta).toEqual({ total: tied.length, limit: 5, offset });
        pages.push(...names(body));
      }
      expect(pages).toEqual(ordered(tied));
      const { body } = await get('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ issues(search: "tied issue", limit: 3, offset: 20) { data { id } meta { total } } }' }),
      });
      expect(body.data.issues.meta.total).toBe(tied.length);
      expect(body.data.issues.data.map((i: { id: string }) => i.id)).toEqual(
        ordered(tied)
          .slice(20)
          .map((k) => ids[k]),
      );
    });

    // The page and its total are separate fields, each loaded only when asked (src/schema/issue.ts).
    it('the total is exact whatever else is asked: meta before data, meta alone, a page past the end', async () => {
      const tied = served.filter((k) => k.startsWith('tie-'));
      const totals = async (selection: string, offset = 0) => {
        const { body } = await get('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
          body: JSON.stringify({ query: `{ issues(search: "tied issue", limit: 3, offset: ${offset}) { ${selection} } }` }),
        });
        return body.data.issues;
      };
      expect(await totals('meta { total } data { id }')).toEqual({
        meta: { total: tied.length },
        data: ordered(tied)
          .slice(0, 3)
          .map((k) => ({ id: ids[k] })),
      });
      expect(await totals('meta { total }')).toEqual({ meta: { total: tied.length } });
      expect(await totals('data { id } meta { total }', tied.length)).toEqual({ data: [], meta: { total: tied.length } });
      expect((await list(`?search=tied&offset=${tied.length}`)).meta).toEqual({ total: tied.length, limit: 20, offset: tied.length });
    });

    it('label: one value, or repeated to accept any of them', async () => {
      expect(await listNames('?label=privacy')).toEqual(['openai']);
      expect(await listNames('?label=research&label=policy')).toEqual(ordered(['research', 'policy']));
      expect(await listNames('?label=Security')).toEqual(ordered(['langchain', 'openai']));
    });

    it('severity and issueType', async () => {
      expect(await listNames('?severity=critical')).toEqual(['langchain']);
      expect(await listNames('?severity=medium')).toEqual(ordered(served.filter((n) => n.startsWith('tie-'))));
      expect(await listNames('?issueType=incident')).toEqual(['openai']);
      expect(await listNames('?issueType=research&severity=low')).toEqual(['research']);
      expect(await listNames('?issueType=research&severity=high')).toEqual([]);
    });

    it('vendor: normalised or raw name, case-insensitive', async () => {
      expect(await listNames('?vendor=openai')).toEqual(['openai']);
      expect(await listNames('?vendor=OpenAI')).toEqual(['openai']);
      expect(await listNames('?vendor=chatgpt')).toEqual(['openai']);
      expect(await listNames('?vendor=langchain%20inc.')).toEqual(['langchain']);
      expect(await listNames('?vendor=open')).toEqual([]);
    });

    it('package: package name, case-insensitive', async () => {
      expect(await listNames('?package=LangChain')).toEqual(['langchain']);
      expect(await listNames('?package=%40scope%2Fsome-pkg')).toEqual(['research']);
      expect(await listNames('?package=lang')).toEqual([]);
    });

    it('since: a date means its start in UTC, and "after" is strict', async () => {
      // policy was published exactly at 2025-01-31T00:00:00.000Z, research one millisecond later.
      expect(await listNames('?since=2025-01-31')).toEqual(ordered(['langchain', 'openai', 'research']));
      expect(await listNames('?since=2025-01-31T00:00:00.000Z')).toEqual(ordered(['langchain', 'openai', 'research']));
      expect(await listNames('?since=2025-01-30T23:59:59.999Z')).toEqual(ordered(['langchain', 'openai', 'research', 'policy']));
      expect(await listNames('?since=2025-03-01')).toEqual(['langchain']);
    });

    it('since: date-times with an offset, and without one as UTC', async () => {
      expect(await listNames('?since=2025-02-20T10:30:00%2B02:00')).toEqual(['langchain']);
      expect(await listNames('?since=2025-02-20T09:30:00%2B02:00')).toEqual(ordered(['langchain', 'openai']));
      expect(await listNames('?since=2025-02-20T08:29:59')).toEqual(ordered(['langchain', 'openai']));
      expect(await listNames('?since=2025-02-20T08:30:00')).toEqual(['langchain']);
    });

    it('confidenceMin: at least that value', async () => {
      expect(await listNames('?confidenceMin=0.7')).toEqual(ordered(['langchain', 'openai']));
      expect(await listNames('?confidenceMin=0.95')).toEqual(['langchain']);
      expect(await listNames('?confidenceMin=1')).toEqual([]);
      expect((await list('?confidenceMin=0')).meta.total).toBe(served.length);
    });

    it('filters combine, and meta.total counts all matches, not the page', async () => {
      const body = await list('?label=security&confidenceMin=0.5&limit=1');
      expect(names(body)).toEqual(['langchain']);
      expect(body.meta).toEqual({ total: 2, limit: 1, offset: 0 });
    });
  });

  describe('paging', () => {
    it('limit above 100 is clamped and echoed; offset is echoed', async () => {
      expect((await list('?limit=500')).meta).toEqual({ total: served.length, limit: 100, offset: 0 });
      expect((await list('?limit=100&offset=3')).meta).toEqual({ total: served.length, limit: 100, offset: 3 });
      expect((await list('?limit=5')).data).toHaveLength(5);
    });

    it('walks all pages without overlap or gap, even across equal publishedAt', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < served.length + 7; offset += 7) {
        const body = await list(`?limit=7&offset=${offset}`);
        expect(body.meta).toEqual({ total: served.length, limit: 7, offset });
        seen.push(...(names(body) as string[]));
      }
      expect(seen).toEqual(ordered(served));
      expect(new Set(seen).size).toBe(served.length);
    });

    it('an offset past the end is an empty page', async () => {
      const body = await list('?offset=1000');
      expect(body).toEqual({ data: [], meta: { total: served.length, limit: 20, offset: 1000 } });
    });
  });

  describe('bad input is a 400 envelope naming the parameter', () => {
    const cases: [string, string][] = [
      ['limit=abc', 'limit must be an integer'],
      ['limit=1.5', 'limit must be an integer'],
      ['limit=0x10', 'limit must be an integer'],
      ['limit=99999999999', 'limit must be at most 2147483647'],
      ['limit=0', 'limit must be at least 1'],
      ['limit=-3', 'limit must be at least 1'],
      ['limit=5&limit=6', 'limit must be given at most once'],
      ['offset=-1', 'offset must be at least 0'],
      ['offset=two', 'offset must be an integer'],
      ['since=yesterday', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['since=2025-02-30', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['since=2025-1-5', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['since=2025-01-31%2012:00:00Z', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['since=2025-01-31T25:00:00Z', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['since=1738281600', 'since must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)'],
      ['severity=urgent', 'severity must be one of: critical, high, medium, low, info'],
      ['severity=HIGH', 'severity must be one of: critical, high, medium, low, info'],
      ['issueType=blog', 'issueType must be one of: vulnerability, incident, news, regulatory, research'],
      ['confidenceMin=1.5', 'confidenceMin must be between 0 and 1'],
      ['confidenceMin=-0.1', 'confidenceMin must be between 0 and 1'],
      ['confidenceMin=high', 'confidenceMin must be a number'],
      ['confidenceMin=Infinity', 'confidenceMin must be a number'],
      [`search=${'a'.repeat(201)}`, 'search must be at most 200 characters'],
      ['search=a&search=b', 'search must be given at most once'],
      ['limit[x]=1', 'limit: repeat the parameter (name=a&name=b) instead of using brackets'],
    ];
    it.each(cases)('%s', async (query, message) => {
      const { status, body, headers } = await get(`/api/v1/issues?${query}`);
      expect(status).toBe(400);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(body).toEqual({ error: { message, status: 400 } });
    });

    it('accepts the edges: limit 1 and 100, offset 0, confidenceMin 0 and 1, search of 200 characters', async () => {
      for (const q of ['limit=1', 'limit=100', 'offset=0', 'confidenceMin=0', 'confidenceMin=1', `search=${'a'.repeat(200)}`, 'limit=', 'severity=']) {
        expect((await get(`/api/v1/issues?${q}`)).status, q).toBe(200);
      }
    });
  });
});

describe('GET /api/v1/issues/:id', () => {
  it('answers {data: Issue} with every spec field', async () => {
    const { status, body } = await get(`/api/v1/issues/${ids.openai}`);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data']);
    expect(Object.keys(body.data).sort()).toEqual([...specIssueFields].sort());
    expect(body.data).toMatchObject({ id: ids.openai, title: 'OpenAI plugin leaks conversation data', cvssScore: null, labels: ['privacy', 'security'] });
  });

  it('accepts the id in upper case', async () => {
    const { status, body } = await get(`/api/v1/issues/${ids.openai!.toUpperCase()}`);
    expect(status).toBe(200);
    expect(body.data.id).toBe(ids.openai);
  });

  it.each([
    ['unknown id', () => '00000000-0000-4000-8000-000000000000'],
    ['malformed id', () => 'not-a-uuid'],
    ['almost a uuid', () => `${ids.openai}0`],
    ['non-relevant issue', () => ids.notRelevant!],
    ['withdrawn issue', () => ids.withdrawn!],
    ['unprocessed issue', () => ids.unprocessed!],
  ])('%s is the same 404 envelope', async (_label, id) => {
    const { status, body } = await get(`/api/v1/issues/${encodeURIComponent(id())}`);
    expect(status).toBe(404);
    expect(body).toEqual({ error: { message: 'Issue not found', status: 404 } });
  });
});

describe('GET /api/v1/stats', () => {
  it('answers {data: Statistics}', async () => {
    const { status, body } = await get('/api/v1/stats');
    expect(status).toBe(200);
    // The spec's four keys, then the freshness fields: no source has synced here, so no time (the
    // sample's load is not new data).
    expect(body).toEqual({
      data: { totalIssues: served.length, totalDigests: 0, last24h: 0, last7d: 0, lastNewDataAt: null, newDataSources: [] },
    });
  });
});

describe('routes that do not exist', () => {
  it.each([
    ['GET', '/api/v1'],
    ['GET', '/api/v1/'],
    ['GET', '/api/v1/issues/'],
    ['GET', '/api/v1/Issues'],
    ['GET', '/api/v1/issue'],
    ['GET', '/api/v1/latest-digest'],
    ['GET', '/api/v1/digest'],
    ['GET', '/api/v1/webhook'],
    ['POST', '/api/v1/webhook'],
    ['GET', '/api/v1/nope/deeper'],
    ['GET', '/api'],
    ['GET', '/api/issues'],
    ['GET', '/api/v1/issues/%E0%A4%A'],
  ])('%s %s is a 404 envelope', async (method, path) => {
    const { status, body } = await get(path, {
      method,
      ...(method === 'POST' || method === 'PUT' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
    });
    expect(status).toBe(404);
    expect(body.error.status).toBe(404);
    expect(body.error.message).toContain(path);
    expect(Object.keys(body)).toEqual(['error']);
  });

  it.each([
    ['POST', '/api/v1/issues', 'GET, HEAD'],
    ['DELETE', '/api/v1/issues/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ['PUT', '/api/v1/stats', 'GET, HEAD'],
  ])('%s %s is a 405 envelope with Allow', async (method, path, allow) => {
    const res = await t.fetch(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect((await res.json()).error).toEqual({ message: `Method ${method} is not allowed on ${path}; use ${allow}`, status: 405 });
  });
});

describe('headers', () => {
  it('any origin may read any API response, errors included, without credentials', async () => {
    for (const path of ['/api/v1/issues', '/api/v1/issues?limit=0', '/api/v1/nope', '/graphql?query=%7B__typename%7D']) {
      const res = await t.fetch(path, { headers: { origin: 'https://somewhere.example' } });
      const allowed = res.headers.get('access-control-allow-origin');
      expect(allowed === '*' || allowed === 'https://somewhere.example', path).toBe(true);
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy', 'Retry-After']));
    }
  });

  it('answers preflight requests on REST and GraphQL routes', async () => {
    for (const [path, method] of [
      ['/api/v1/issues', 'GET'],
      ['/api/v1/issues/x', 'GET'],
      ['/graphql', 'POST'],
      ['/api/v1/webhooks/x', 'PATCH'],
    ] as const) {
      const res = await t.fetch(path, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': method, 'access-control-request-headers': 'content-type' },
      });
      expect(res.status, path).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/app\.example)$/);
      expect(res.headers.get('access-control-allow-methods')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-max-age')).toBe('86400');
    }
  });

  it('API responses carry the CC-BY-4.0 Link header and a request id', async () => {
    for (const path of ['/api/v1/issues', '/api/v1/issues/nope', '/graphql?query=%7B__typename%7D']) {
      const res = await t.fetch(path);
      // Lists add their paging links after it (test/edge/paging-links.test.ts).
      expect(res.headers.get('link')?.split(', ')[0], path).toBe('<https://creativecommons.org/licenses/by/4.0/>; rel="license"');
      expect(res.headers.get('x-request-id'), path).toMatch(/^[\w.:-]+$/);
    }
    const res = await t.fetch('/api/v1/stats', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
  });

  it('HEAD answers like GET without a body', async () => {
    for (const path of ['/api/v1/issues?severity=high', '/api/v1/issues/nope', '/api/v1/stats', '/api/issues/export', '/health']) {
      const [get, head] = [await t.fetch(path), await t.fetch(path, { method: 'HEAD', headers: { 'x-request-id': 'head-1' } })];
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(head.headers.get('x-request-id'), path).toBe('head-1');
      expect(await head.text(), path).toBe('');
      await get.arrayBuffer();
    }
  });
});

describe('GraphQL', () => {
  // The fields REST serves: every one but the GraphQL-only ones (classification, owaspIds, modifiedAt).
  const issueFields = Object.values((schema.getType('Issue') as GraphQLObjectType).getFields())
    .filter((f) => !f.extensions?.graphqlOnly)
    .map((f) => f.name)
    .join(' ');

  it('answers exactly the fields asked for', async () => {
    const { body } = await t.graphql(`query($id: ID!) { issue(id: $id) { data { id title } } }`, { id: ids.langchain });
    expect(body.errors).toBeUndefined();
    expect(body.data.issue).toEqual({ data: { id: ids.langchain, title: 'Prompt injection in LangChain agents' } });
    const listed = await t.graphql(`{ issues(limit: 2) { data { severity cvssScore } } }`);
    expect(listed.body.data.issues.data).toEqual([
      { severity: 'critical', cvssScore: '9.8' },
      { severity: 'high', cvssScore: null },
    ]);
  });

  it('returns the same data as REST for the list and for one issue', async () => {
    const query = `query($severity: Severity, $label: [String!], $limit: Int, $offset: Int) {
      issues(severity: $severity, label: $label, limit: $limit, offset: $offset) { data { ${issueFields} } meta { total limit offset } } }`;
    for (const [rest, variables] of [
      ['?limit=10&offset=2', { limit: 10, offset: 2 }],
      ['?severity=critical', { severity: 'critical' }],
      ['?label=privacy&label=policy', { label: ['privacy', 'policy'] }],
    ] as const) {
      const { body } = await t.graphql(query, variables);
      expect(body.errors).toBeUndefined();
      expect(body.data.issues).toEqual(await list(rest));
    }
    const one = await t.graphql(`query($id: ID!) { issue(id: $id) { data { ${issueFields} } } }`, { id: ids.langchain });
    expect(one.body.data.issue).toEqual((await get(`/api/v1/issues/${ids.langchain}`)).body);
  });

  it('gives the same messages as REST for the same bad values', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['limit=0', { limit: 0 }],
      ['offset=-1', { offset: -1 }],
      ['confidenceMin=2', { confidenceMin: 2 }],
      ['since=last-week', { since: 'last-week' }],
      [`search=${'x'.repeat(201)}`, { search: 'x'.repeat(201) }],
    ];
    for (const [rest, variables] of cases) {
      const restError = (await get(`/api/v1/issues?${rest}`)).body.error;
      const { body } = await t.graphql(
        `query($limit: Int, $offset: Int, $confidenceMin: Float, $since: String, $search: String) {
          issues(limit: $limit, offset: $offset, confidenceMin: $confidenceMin, since: $since, search: $search) { meta { total } } }`,
        variables,
      );
      expect(body.errors![0].message).toBe(restError.message);
      expect(body.errors![0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  it('reports a missing issue as NOT_FOUND', async () => {
    const { body } = await t.graphql(`{ issue(id: "nope") { data { id } } stats { data { totalIssues } } }`);
    expect(body.data).toEqual({ issue: null, stats: { data: { totalIssues: served.length } } });
    expect(body.errors![0]).toMatchObject({ message: 'Issue not found', extensions: { code: 'NOT_FOUND' }, path: ['issue'] });
  });

  it('rejects an unknown enum value with a standard GraphQL validation error', async () => {
    const { body } = await t.graphql(`{ issues(severity: urgent) { meta { total } } }`);
    expect(body.errors![0].message).toMatch(/urgent/);
  });

  it('the example query in GraphiQL runs against the schema', async () => {
    const { exampleQuery } = await import('../../src/server/app.js');
    const { body } = await t.graphql(exampleQuery);
    expect(body.errors).toBeUndefined();
    expect(body.data.issues.data).toHaveLength(5);
  });

  it('every root field and argument has a description', () => {
    for (const type of [schema.getQueryType()!]) {
      for (const field of Object.values(type.getFields())) {
        expect(field.description, field.name).toBeTruthy();
        for (const arg of field.args) expect(arg.description, `${field.name}(${arg.name})`).toBeTruthy();
        const named = getNamedType(field.type);
        if (isObjectType(named)) expect(named.description, named.name).toBeTruthy();
      }
    }
  });
});
