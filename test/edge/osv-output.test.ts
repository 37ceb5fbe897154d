// OSV output on ingested data: every record, one by one and in the bulk zips, validates against
// the OSV schema (data/osv-schema, Apache-2.0) with ajv; advisories keep their ids and ranges.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { unzipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeed } from '@rowanmanning/feed-parser';
import { storeEnrichment } from '../../src/sources/store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { adminHeaders, adminKey, ingestMutation, loadAdvisories, loadItems } from '../helpers/samples.js';

let t: TestApp;
const advisories = loadAdvisories();
const natives = [
  {
    title: 'Remote code execution in an LLM serving library',
    url: 'https://example.org/native-rce',
    publishedAt: '2024-05-01T00:00:00Z',
    type: 'vulnerability',
    severity: 'critical',
    summary: 'A crafted prompt template runs code in the model server.',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    packages: [
      { ecosystem: 'pypi', name: 'llm-serve', fixed: '1.2.3' },
      { ecosystem: 'Model Hub', name: 'some/model' },
    ],
    references: ['https://example.org/writeup with spaces'],
  },
];

const schema = JSON.parse(readFileSync(new URL('../../data/osv-schema/schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

function expectValid(record: unknown) {
  const ok = validate(record);
  expect(ok, `${(record as { id?: string }).id}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

let served: { id: string; cveId: string | null; sourceUrl: string; title: string }[] = [];

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  const items = [...advisories, ...loadItems('atlas-case-studies.json').slice(0, 5), ...natives];
  const { body } = await t.graphql(ingestMutation, { items }, adminHeaders);
  expect(body.errors).toBeUndefined();
  served = await t.db.prisma.issue.findMany({
    where: { relevant: true, processed: true, withdrawn: false },
    select: { id: true, cveId: true, sourceUrl: true, title: true },
  });
  expect(served.length).toBeGreaterThan(40);
}, 120_000);
afterAll(async () => t?.close());

const osv = async (id: string) => {
  const res = await t.fetch(`/api/v1/issues/${id}/osv`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
};

describe('GET /api/v1/issues/{id}/osv', () => {
  it('answers a valid OSV record for every served issue', async () => {
    for (const issue of served) {
      const { status, type, body } = await osv(issue.id);
      expect(status).toBe(200);
      expect(type).toContain('application/json');
      expectValid(body);
      expect(body.database_specific.secwireId).toBe(issue.id);
    }
  });

  it('dates an unchanged record by its upstream modified, in the OSV record and the Atom entry; a change made here by its own time', async () => {
    // Stored today, last modified upstream on 2023-10-05: a reader must see the latter.
    const issue = served.find((i) => i.cveId === 'CVE-2023-39631')!;
    const entryUpdated = async () => {
      const feed = await parseFeed(await (await t.fetch('/api/v1/issues.atom?search=CVE-2023-39631')).text());
      expect(feed.items.map((i) => i.id)).toEqual([`urn:uuid:${issue.id}`]);
      return feed.items[0]!.updated?.toISOString();
    };
    expect((await osv(issue.id)).body.modified).toBe('2023-10-05T13:26:22.000Z');
    expect(await entryUpdated()).toBe('2023-10-05T13:26:22.000Z');
    // An EPSS score applied here changes the content: from now on it is our change's time.
    await storeEnrichment(t.db.bulkTransaction, [{ cveId: 'CVE-2023-39631', epssScore: 0.5, epssCheckedAt: '2026-01-01T00:00:00Z' }]);
    const { changedHereAt } = await t.db.prisma.issue.findUniqueOrThrow({ where: { id: issue.id } });
    expect(changedHereAt!.getTime()).toBeGreaterThan(Date.parse('2026-01-01'));
    expect((await osv(issue.id)).body.modified).toBe(changedHereAt!.toISOString());
    expect(await entryUpdated()).toBe(changedHereAt!.toISOString());
  });

  it('keeps an advisory id, its aliases and its affected ranges as ingested', async () => {
    const advisory = advisories.find((a) => a.id === 'GHSA-2jxw-4hm4-6w87')!;
    const issue = served.find((i) => i.sourceUrl === 'https://github.com/advisories/GHSA-2jxw-4hm4-6w87')!;
    const { body } = await osv(issue.id);
    expect(body.id).toBe('GHSA-2jxw-4hm4-6w87');
    expect(body.aliases).toEqual(expect.arrayContaining(['CVE-2024-23751', 'PYSEC-2024-12']));
    expect(body.aliases).not.toContain(body.id);
    expect(body.affected).toEqual(advisory.affected);
    expect(body.references).toContainEqual({ type: 'ADVISORY', url: 'https://github.com/advisories/GHSA-2jxw-4hm4-6w87' });
    expect(body.database_specific).toMatchObject({ severity: 'high', issueType: 'vulnerability', cweIds: ['CWE-89'] });
  });

  it('gives a native item a private-prefix id, OSV spellings of its ecosystems and its CVSS vector', async () => {
    const issue = served.find((i) => i.sourceUrl === 'https://example.org/native-rce')!;
    const { body } = await osv(issue.id);
    expect(body.id).toBe(`x_secwire-${issue.id}`);
    expect(body.severity).toEqual([{ type: 'CVSS_V3', score: natives[0]!.cvssVector }]);
    expect(body.affected).toEqual([
      { package: { ecosystem: 'PyPI', name: 'llm-serve' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }] },
    ]);
    // An ecosystem OSV does not list stays in the record, beside `affected`.
    expect(body.database_specific.unlistedAffected[0].package).toEqual({ ecosystem: 'Model Hub', name: 'some/model' });
    expect(body.references.map((r: { url: string }) => r.url)).toContain('https://example.org/writeup%20with%20spaces');
  });

  it('is a 404 envelope for an unknown, malformed or unserved id', async () => {
    const hidden = await t.db.prisma.issue.create({ data: makeIssue({ relevant: false }) });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', hidden.id]) {
      expect(await osv(id)).toMatchObject({ status: 404, body: { error: { status: 404, message: 'Issue not found' } } });
    }
  });
});

describe('bulk OSV export', () => {
  const get = async (path: string) => {
    const res = await t.fetch(path);
    expect(res.status).toBe(200);
    return res;
  };
  const unzip = async (res: Response) => unzipSync(new Uint8Array(await res.arrayBuffer()));
  const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

  it('all.zip holds every served issue as <id>.json, each valid and equal to the single record', async () => {
    const res = await get('/api/v1/osv/all.zip');
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = await unzip(res);
    expect(Object.keys(files)).toHaveLength(served.length);
    for (const [name, bytes] of Object.entries(files)) {
      const record = json(bytes);
      expectValid(record);
      expect(name).toBe(`${record.id}.json`);
    }
    const one = served[0]!;
    const single = (await osv(one.id)).body;
    expect(json(files[`${single.id}.json`]!)).toEqual(single);
  });

  it("dates each entry by its record's modified, so the same data is the same bytes on every instance and at every rebuild", async () => {
    const zip = new Uint8Array(await (await get('/api/v1/osv/all.zip')).arrayBuffer());
    const files = unzipSync(zip);
    const entries = zipEntryDates(zip);
    expect(entries.size).toBe(Object.keys(files).length);
    for (const [name, bytes] of Object.entries(files)) expect(entries.get(name), name).toBe(dosDateTime(new Date(json(bytes).modified)));
  });

  it('<ecosystem>/all.zip holds the records affecting that ecosystem, and ecosystems.txt names them', async () => {
    const all = Object.values(await unzip(await get('/api/v1/osv/all.zip'))).map(json);
    const text = await (await get('/api/v1/osv/ecosystems.txt')).text();
    const names = text.trimEnd().split('\n');
    expect(names).toContain('PyPI');
    expect(names).toEqual([...new Set(all.flatMap((r) => r.affected.map((a: any) => a.package.ecosystem.split(':')[0])))].sort());
    for (const name of names) {
      const files = await unzip(await get(`/api/v1/osv/${encodeURIComponent(name)}/all.zip`));
      const expected = all.filter((r) => r.affected.some((a: any) => a.package.ecosystem.split(':')[0] === name)).map((r) => `${r.id}.json`);
      expect(Object.keys(files).sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThan(0);
    }
    expect(Object.keys(await unzip(await get('/api/v1/osv/NoSuchEcosystem/all.zip')))).toEqual([]);
  });

  it('refuses other methods with 405 and Allow, and unknown paths with the 404 envelope', async () => {
    const post = await t.fetch('/api/v1/osv/all.zip', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await t.fetch('/api/v1/osv/all.zip', { method: 'HEAD' });
    expect(head.status).toBe(200);
    const missing = await t.fetch('/api/v1/osv/all.tar');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.status).toBe(404);
  });
});

/** A zip's entries by name, each with its date and time as the central directory holds them (DOS, local time). */
function zipEntryDates(zip: Uint8Array): Map<string, number> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.byteLength - 22; // the end-of-directory record, with no comment
  expect(view.getUint32(end, true)).toBe(0x06054b50);
  const dates = new Map<string, number>();
  let at = view.getUint32(end + 16, true);
  for (let i = 0; i < view.getUint16(end + 10, true); i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50);
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
    dates.set(name, view.getUint32(at + 12, true));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return dates;
}

/** A date as a zip entry's DOS time (low 16 bits) and date (high 16 bits), two-second precision. */
const dosDateTime = (d: Date) =>
  (((((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate()) << 16) |
    (d.getHours() << 11) |
    (d.getMinutes() << 5) |
    (d.getSeconds() >> 1)) >>>
  0;
