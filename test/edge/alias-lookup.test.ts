// Lookup by alias: GET /api/v1/issues?alias=... and GraphQL issueByAlias find an ingested issue by
// any identifier its sources gave it (CVE, GHSA, PYSEC, ATLAS case study), whatever the case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, ingestMutation, loadAdvisory, loadItems } from '../helpers/samples.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  const atlas = loadItems('atlas-case-studies.json').find((item) => item.id === 'AML.CS0000');
  const { body } = await t.graphql(ingestMutation, { items: [loadAdvisory('GHSA-2jxw-4hm4-6w87'), loadAdvisory('GHSA-3qqg-pgqq-3695'), atlas] }, adminHeaders);
  expect(body.errors).toBeUndefined();
  expect(body.data.ingestItems.data.created).toBe(3);
});
afterAll(async () => t?.close());

const BY_ALIAS = `query ($alias: String!) { issueByAlias(alias: $alias) { data { id title cveId advisoryAliases } } }`;

async function listByAlias(alias: string) {
  const res = await t.fetch(`/api/v1/issues?alias=${encodeURIComponent(alias)}`);
  return { status: res.status, body: await res.json() };
}

describe('lookup by alias', () => {
  it.each([
    ['a CVE id', 'CVE-2024-23751', 'llama-index'],
    ['a GHSA id', 'GHSA-2jxw-4hm4-6w87', 'llama-index'],
    ['a GHSA id in upper case', 'GHSA-2JXW-4HM4-6W87', 'llama-index'],
    ['a CVE id in lower case, with blanks', '  cve-2024-23751 ', 'llama-index'],
    ['an ATLAS case study id', 'aml.cs0000', 'Evasion of Deep Learning Detector'],
  ])('finds the issue by %s on REST and GraphQL', async (_what, alias, title) => {
    const list = await listByAlias(alias);
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0].title).toContain(title);

    const { body } = await t.graphql(BY_ALIAS, { alias });
    expect(body.errors).toBeUndefined();
    expect(body.data.issueByAlias.data.id).toBe(list.body.data[0].id);
  });

  it('finds an issue by the PYSEC id its advisory references', async () => {
    const list = await listByAlias('pysec-2023-90');
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0].cveId).toBe('CVE-2023-34239');
  });

  it('combines with the other filters', async () => {
    expect((await listByAlias('CVE-2024-23751')).body.meta.total).toBe(1);
    const res = await t.fetch('/api/v1/issues?alias=CVE-2024-23751&issueType=research');
    expect((await res.json()).meta.total).toBe(0);
  });

  it('an unknown alias is an empty list on REST and NOT_FOUND on GraphQL', async () => {
    const list = await listByAlias('CVE-1999-0001');
    expect(list).toMatchObject({ status: 200, body: { data: [], meta: { total: 0 } } });
    const { body } = await t.graphql(BY_ALIAS, { alias: 'CVE-1999-0001' });
    expect(body.data.issueByAlias).toBeNull();
    expect(body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('refuses an over-long or repeated alias with a 400 envelope', async () => {
    const long = await listByAlias('x'.repeat(101));
    expect(long).toEqual({ status: 400, body: { error: { status: 400, message: 'alias must be at most 100 characters' } } });
    const twice = await t.fetch('/api/v1/issues?alias=CVE-2024-23751&alias=CVE-2023-1');
    expect(twice.status).toBe(400);
    expect((await twice.json()).error.message).toContain('alias');
  });
});
