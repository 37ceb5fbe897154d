// A KEV entry for AI software that no advisory covers becomes a served vulnerability issue (built
// from the catalog's vendor, product, description, CVE and dates, classified like any record);
// when the advisory for that CVE arrives later, the two are one issue. The bundled catalog is
// served over HTTPS from 127.0.0.1: Langflow's CVE-2025-3248 is in it.
import { readFileSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import yazl from 'yazl';
import { syncSource } from '../../src/sources/sync.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { recordingLog } from '../helpers/recording-log.js';

const langflow = JSON.parse(readFileSync(new URL('../fixtures/sources/GHSA-rvqx-wpfh-mfx7.json', import.meta.url), 'utf8')) as Record<string, unknown>;
let t: TestApp;
let files: FileServer;

beforeAll(async () => {
  files = await startFileServer();
  t = await createTestApp();
  files.set('/kev.json', readFileSync(new URL('../../data/kev/known_exploited_vulnerabilities.json', import.meta.url)));
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify(langflow)), `${String(langflow.id)}.json`);
  zip.end();
  files.set('/osv/all.zip', await buffer(zip.outputStream));
});
afterAll(async () => {
  await t?.close();
  await files?.close();
});

const sync = (name: string, kind: 'kev' | 'osv-zip', path: string) =>
  syncSource(
    { prisma: t.db.prisma, pubsub: t.pubsub, log: recordingLog(), db: t.db },
    { name, kind, location: files.url(path), intervalMinutes: 60 },
    { allowPrivate: true, ca: files.ca },
  );

it('serves the KEV entry of AI software no advisory covers, as a known-exploited vulnerability; the advisory arriving later takes it over', async () => {
  const kev = await sync('kev', 'kev', '/kev.json');
  expect(kev.status).toBe('synced');
  expect(kev.counts.created).toBeGreaterThan(1000);
  const { data, meta } = await (await t.fetch('/api/v1/issues?knownExploited=true')).json();
  // Of the catalog's 1,404 entries, the AI software: Langflow.
  expect(meta.total).toBe(1);
  const [issue] = data;
  expect(issue).toMatchObject({
    issueType: 'vulnerability',
    cveId: 'CVE-2025-3248',
    kevDateAdded: '2025-05-05',
    exploitMaturity: 'active',
    publishedAt: '2025-05-05T00:00:00.000Z',
    sourceUrl: 'https://nvd.nist.gov/vuln/detail/CVE-2025-3248',
    cweIds: ['CWE-306'],
  });
  expect(issue.title).toContain('Langflow Missing Authentication Vulnerability');
  expect(issue.summary).toContain('/api/v1/validate/code');
  expect(issue.solution).toMatch(/^Apply mitigations per vendor instructions/);
  expect(issue.affectedVendors.join(' ')).toMatch(/langflow/i);
  const gql = await t.graphql('{ issues(knownExploited: true) { data { id } } }');
  expect(gql.body.data.issues.data).toEqual([{ id: issue.id }]);

  // The advisory arrives: the same issue, now the advisory's, still known exploited.
  const osv = await sync('osv', 'osv-zip', '/osv/all.zip');
  expect(osv.counts).toMatchObject({ created: 0, updated: 1 });
  const after = await (await t.fetch('/api/v1/issues?alias=CVE-2025-3248')).json();
  expect(after.meta.total).toBe(1);
  expect(after.data[0]).toMatchObject({ id: issue.id, sourceUrl: `https://github.com/advisories/${String(langflow.id)}`, kevDateAdded: '2025-05-05' });
  expect((await (await t.fetch('/api/v1/issues?knownExploited=true')).json()).data.map((i: { id: string }) => i.id)).toEqual([issue.id]);

  // A second KEV sync: the entry is now covered by the advisory and left to enrichment.
  files.set('/kev.json', Buffer.concat([readFileSync(new URL('../../data/kev/known_exploited_vulnerabilities.json', import.meta.url)), Buffer.from('\n')]));
  const again = await sync('kev', 'kev', '/kev.json');
  expect(again.counts).toMatchObject({ created: 0, updated: 0 });
  expect(await t.db.prisma.issue.count({ where: { cveId: 'CVE-2025-3248' } })).toBe(1);
}, 300_000);
