// Sources end to end: real files in their real formats (an OSV zip built from the sample
// advisories, CISA's KEV catalog, an EPSS CSV in FIRST's layout, RSS and Atom feeds) served over
// HTTPS from 127.0.0.1, synced into a real database, read back through the API.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { parseConfig, type ConfigError } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { ingest } from '../../src/ingest/ingest.js';
import type { SourceDefinition } from '../../src/sources/definition.js';
import { retryMinutes } from '../../src/sources/schedule.js';
import { parsedOffThread } from '../../src/sources/record-parser.js';
import { maxRecordBytes } from '../../src/sources/record-size.js';
import { syncSource, type SyncOptions } from '../../src/sources/sync.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { recordingLog } from '../helpers/recording-log.js';
import { loadAdvisories } from '../helpers/samples.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sources/${name}`, import.meta.url));
const langflow = JSON.parse(fixture('GHSA-rvqx-wpfh-mfx7.json').toString()) as Record<string, any>;
const kevCatalog = JSON.parse(readFileSync(new URL('../../data/kev/known_exploited_vulnerabilities.json', import.meta.url), 'utf8'));
// Listed here, after the sample's litellm advisory (GitHub: moderate) is stored.
kevCatalog.vulnerabilities.push({ ...kevCatalog.vulnerabilities[0], cveID: 'CVE-2024-4888', dateAdded: '2025-09-01' });
const kevFile = Buffer.from(JSON.stringify(kevCatalog));

async function zipOf(records: Record<string, unknown>[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r, null, 2)), `${String(r.id)}.json`);
  zip.end();
  return buffer(zip.outputStream);
}

let t: TestApp;
let files: FileServer;
const log = recordingLog();
const advisories = [...loadAdvisories(), langflow];

const source = (name: string, kind: SourceDefinition['kind'], path: string): SourceDefinition => ({
  name,
  kind,
  location: files.url(path),
  intervalMinutes: 60,
});
const deps = () => ({ prisma: t.db.prisma, pubsub: t.pubsub, log, db: t.db });
const options = (extra: Partial<SyncOptions> = {}): SyncOptions => ({ allowPrivate: true, ca: files.ca, relay: false, ...extra });
const sync = (s: SourceDefinition, extra: Partial<SyncOptions> = {}) => syncSource(deps(), s, options(extra));

/** What a change would move: the newest modifiedAt, the event rows and the stored issues. */
async function snapshot() {
  const prisma = t.db.prisma;
  const [latest, events, issues] = await Promise.all([prisma.issue.aggregate({ _max: { modifiedAt: true } }), prisma.issueEvent.count(), prisma.issue.count()]);
  return { latest: latest._max.modifiedAt?.toISOString() ?? null, events, issues };
}

const issueBy = async (cve: string) => (await (await t.fetch(`/api/v1/issues?search=${cve}`)).json()).data[0];

beforeAll(async () => {
  files = await startFileServer();
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
  await files?.close();
});

describe('osv-zip, kev and epss', () => {
  beforeAll(async () => {
    files.set('/osv/all.zip', await zipOf(advisories));
    files.set('/kev.json', kevFile);
    files.set('/epss.csv.gz', gzipSync(fixture('epss.csv')));
  });

  it('fill kevDateAdded, exploitMaturity, epssScore and epssCheckedAt on the matching served issues, shown by the REST list', async () => {
    const zip = await sync(source('osv', 'osv-zip', '/osv/all.zip'));
    expect(zip).toMatchObject({ status: 'synced', counts: { received: advisories.length, created: advisories.length, rejected: 0 } });
    expect(await issueBy('CVE-2024-4888')).toMatchObject({ severity: 'medium', exploitMaturity: 'unknown', kevDateAdded: null });
    const kev = await sync(source('kev', 'kev', '/kev.json'));
    expect(kev).toMatchObject({ status: 'synced', counts: { received: 1405, updated: 2 } });
    // Known-exploited is at least high, though KEV learned of it after the ingest.
    expect(await issueBy('CVE-2024-4888')).toMatchObject({ severity: 'high', exploitMaturity: 'active', kevDateAdded: '2025-09-01' });
    const epss = await sync(source('epss', 'epss', '/epss.csv.gz'));
    expect(epss.status).toBe('synced');
    expect(epss.counts.updated).toBeGreaterThan(60);

    const issue = await issueBy('CVE-2025-3248');
    expect(issue).toMatchObject({
      cveId: 'CVE-2025-3248',
      kevDateAdded: '2025-05-05',
      exploitMaturity: 'active',
      epssScore: 0.92841,
      epssCheckedAt: '2025-08-25T00:00:00.000Z',
    });
    const other = await issueBy('CVE-2024-37014');
    expect(other).toMatchObject({ kevDateAdded: null, exploitMaturity: 'unknown', epssCheckedAt: '2025-08-25T00:00:00.000Z' });
    expect(typeof other.epssScore).toBe('number');

    const state = await t.db.prisma.sourceState.findUniqueOrThrow({ where: { name: 'epss' } });
    expect(state).toMatchObject({ kind: 'epss', lastError: null });
    expect(state.lastSuccessAt).toBeInstanceOf(Date);
  }, 180_000);

  it('write and publish nothing on a re-run over unchanged data (304, or same fingerprints)', async () => {
    const before = await snapshot();
    for (const [name, kind, path] of [
      ['osv', 'osv-zip', '/osv/all.zip'],
      ['kev', 'kev', '/kev.json'],
      ['epss', 'epss', '/epss.csv.gz'],
    ] as const) {
      expect((await sync(source(name, kind, path))).status).toBe('unchanged');
      expect(files.log.at(-1)).toEqual({ path, status: 304 });
    }
    // The same bytes under new validators: fetched again, every record skipped by fingerprint.
    files.set('/osv/all.zip', await zipOf(advisories));
    await t.db.prisma.sourceState.update({ where: { name: 'osv' }, data: { cursor: {} } });
    const again = await sync(source('osv', 'osv-zip', '/osv/all.zip'));
    expect(again).toMatchObject({ status: 'synced', counts: { skipped: advisories.length, received: 0 } });
    expect(await snapshot()).toEqual(before);
  });

  it('keeps the signals when a record is rewritten, and a new EPSS score is an update, not a new issue', async () => {
    const changed = advisories.map((a) => (a.id === langflow.id ? { ...a, modified: '2025-06-01T00:00:00Z', summary: `${a.summary} (revised)` } : a));
    files.set('/osv/all.zip', await zipOf(changed));
    const before = await snapshot();
    const earlierEvents = new Set((await t.db.prisma.issueEvent.findMany({ select: { id: true } })).map((e) => e.id));
    const result = await sync(source('osv', 'osv-zip', '/osv/all.zip'));
    expect(result.counts).toMatchObject({ received: 1, updated: 1, created: 0, skipped: advisories.length - 1 });
    expect(await issueBy('CVE-2025-3248')).toMatchObject({ kevDateAdded: '2025-05-05', exploitMaturity: 'active', epssScore: 0.92841 });

    const csv = fixture('epss.csv').toString().replace('CVE-2025-3248,0.92841', 'CVE-2025-3248,0.95012');
    files.set('/epss.csv.gz', gzipSync(csv));
    expect((await sync(source('epss', 'epss', '/epss.csv.gz'))).counts.updated).toBe(1);
    expect(await issueBy('CVE-2025-3248')).toMatchObject({ epssScore: 0.95012 });
    const after = await snapshot();
    expect(after.issues).toBe(before.issues);
    const id = (await issueBy('CVE-2025-3248')).id;
    const events = await t.db.prisma.issueEvent.findMany({ where: { id: { notIn: [...earlierEvents] } }, orderBy: { createdAt: 'asc' } });
    // The rewrite, then the new score: two updates of the same issue.
    expect(events.map((e) => [e.kind, e.issueIds])).toEqual([
      ['issues_updated', [id]],
      ['issues_updated', [id]],
    ]);
  });

  it('reads a file that repeats a CVE: the last row wins', async () => {
    const csv = `${fixture('epss.csv').toString().trimEnd()}\nCVE-2025-3248,0.97000,0.99900\n`;
    files.set('/epss.csv.gz', gzipSync(csv));
    const result = await sync(source('epss', 'epss', '/epss.csv.gz'));
    expect(result.status).toBe('synced');
    expect(await issueBy('CVE-2025-3248')).toMatchObject({ epssScore: 0.97 });
  });
});

describe('a mirror polling issueChanges and modifiedSince', () => {
  const changesQuery = `query($since: String!) { issueChanges(modifiedSince: $since) { id modifiedAt withdrawn issue { id title } } }`;

  it('sees every change exactly once across a sync that adds, updates and withdraws', async () => {
    const base = advisories.slice(0, 10).map((a) => ({ ...a, id: `${a.id}-m`.replace('GHSA-', 'MIRR-'), aliases: [], references: [] }));
    files.set('/mirror/all.zip', await zipOf(base));
    const mirror = new Map<string, string>();
    let cursor = '1970-01-01T00:00:00Z';
    const poll = async () => {
      const seen: string[] = [];
      for (;;) {
        const { body } = await t.graphql(changesQuery, { since: cursor });
        expect(body.errors).toBeUndefined();
        const page = body.data.issueChanges as { id: string; modifiedAt: string; withdrawn: boolean; issue: { title: string } | null }[];
        if (page.length === 0) return seen;
        for (const change of page) {
          seen.push(change.id);
          if (change.withdrawn) mirror.delete(change.id);
          else mirror.set(change.id, change.issue!.title);
          cursor = change.modifiedAt;
        }
      }
    };
    await poll();
    await sync(source('mirror', 'osv-zip', '/mirror/all.zip'));
    const first = await poll();
    const servedNow = await t.db.prisma.issue.findMany({
      where: { relevant: true, withdrawn: false, naturalKey: { startsWith: 'MIRR-' } },
      select: { id: true },
    });
    expect(new Set(first)).toEqual(new Set(servedNow.map((i) => i.id)));
    expect(first).toHaveLength(servedNow.length);
    expect(servedNow.length).toBeGreaterThan(5);

    // The REST list gives the same changes, oldest first.
    const rest = await (await t.fetch(`/api/v1/issues?modifiedSince=1970-01-01&search=mirr-&limit=100`)).json();
    expect(rest.data.map((i: { id: string }) => i.id)).toEqual(first);
    expect(Object.keys(rest.data[0])).not.toContain('modifiedAt');

    const [updated, withdrawn] = base;
    const added = { ...advisories[20]!, id: 'MIRR-added-0001', aliases: [], references: [] };
    const next = [
      { ...updated!, modified: '2030-01-01T00:00:00Z', summary: 'Revised summary' },
      { ...withdrawn!, modified: '2030-01-01T00:00:00Z', withdrawn: '2030-01-01T00:00:00Z' },
      ...base.slice(2),
      added,
    ];
    files.set('/mirror/all.zip', await zipOf(next));
    const result = await sync(source('mirror', 'osv-zip', '/mirror/all.zip'));
    expect(result.counts).toMatchObject({ received: 3, created: 1, updated: 2 });
    const second = await poll();
    const byKey = async (key: string) => (await t.db.prisma.issue.findFirstOrThrow({ where: { naturalKey: key } })).id;
    const [updatedId, withdrawnId, addedId] = await Promise.all([byKey(updated!.id), byKey(withdrawn!.id), byKey(added.id)]);
    expect(second.sort()).toEqual([updatedId, withdrawnId, addedId].sort());
    expect(mirror.get(updatedId)).toBe('Revised summary');
    expect(mirror.has(withdrawnId)).toBe(false);
    expect(mirror.has(addedId)).toBe(true);
    expect(await poll()).toEqual([]);

    // Withdrawn: unserved (404) and recorded as an event.
    expect((await t.fetch(`/api/v1/issues/${withdrawnId}`)).status).toBe(404);
    const events = await t.db.prisma.issueEvent.findMany({ where: { kind: 'issues_withdrawn' } });
    expect(events.flatMap((e) => e.issueIds)).toContain(withdrawnId);
  });
});

describe('interrupted and failing syncs', () => {
  beforeEach(() => log.entries.splice(0));

  it('resume where an interrupted sync stopped', async () => {
    const records = advisories.map((a, i) => ({ ...a, id: `RESU-${String(i).padStart(4, '0')}`, aliases: [], references: [] }));
    files.set('/resume/all.zip', await zipOf(records));
    const stop = new AbortController();
    const cut = await sync(source('resume', 'osv-zip', '/resume/all.zip'), {
      chunkSize: 20,
      signal: stop.signal,
      onProgress: (done) => done >= 20 && stop.abort(),
    });
    expect(cut).toMatchObject({ status: 'failed', error: 'sync interrupted' });
    const stored = await t.db.prisma.issue.count({ where: { naturalKey: { startsWith: 'RESU-' } } });
    expect(stored).toBe(20);
    const resumed = await sync(source('resume', 'osv-zip', '/resume/all.zip'), { chunkSize: 20 });
    expect(resumed).toMatchObject({ status: 'synced', counts: { skipped: 20, created: records.length - 20, unchanged: 0 } });
    expect(await t.db.prisma.issue.count({ where: { naturalKey: { startsWith: 'RESU-' } } })).toBe(records.length);
  });

  it('parses large records in the worker thread and stores them whole, in chunks bounded by bytes (one transaction each)', async () => {
    // Random versions do not compress: each entry is over the size parsed off the main thread.
    const records = advisories.slice(0, 3).map((a, i) => ({
      ...a,
      id: `LRGE-${i}`,
      aliases: [],
      references: [],
      affected: [{ ...a.affected[0], versions: Array.from({ length: 2_500 }, () => randomBytes(30).toString('base64')) }],
    }));
    const invalid = { ...records[0], id: 'LRGE-bad', modified: 'yesterday' };
    const zip = new yazl.ZipFile();
    for (const r of [...records, invalid]) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${r.id}.json`);
    zip.addBuffer(Buffer.from(`{"id": "LRGE-json", ${' '.repeat(100_000)}`), 'LRGE-json.json');
    zip.end();
    files.set('/large/all.zip', await buffer(zip.outputStream));
    const progress: number[] = [];
    const offThreadBefore = parsedOffThread();
    const result = await sync(source('large', 'osv-zip', '/large/all.zip'), { chunkBytes: 250 * 1024, onProgress: (done) => progress.push(done) });
    expect(result).toMatchObject({ status: 'synced', counts: { received: 5, created: 3, rejected: 2, tooLarge: 0 } });
    // Entries of about 100 KB: two fit in 250 KB, a third does not: chunks of two, two and one.
    expect(progress).toEqual([2, 4, 5, 5]);
    // Every entry is over the worker's threshold, the unreadable ones too: all five were parsed there.
    expect(parsedOffThread() - offThreadBefore).toBe(5);
    const rejected = log.entries.find((e) => e.msg === 'source records rejected')?.fields?.first as string[];
    expect(rejected).toEqual([
      expect.stringMatching(/^LRGE-bad.json: invalid OSV record: modified: must be an RFC 3339 timestamp/),
      'LRGE-json.json: not valid JSON',
    ]);
    // The worker sends back the versions its facts need; the stored record is the whole one.
    const stored = await t.db.prisma.issue.findFirst({ where: { naturalKey: 'LRGE-0' }, select: { source: true } });
    expect((stored!.source as { affected: { versions: string[] }[] }).affected[0]!.versions).toEqual(records[0]!.affected[0].versions);
    // Its content hash is the one the main thread computes: the same record ingested again changes nothing.
    expect(await ingest(deps(), records[0])).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
  });

  it('skips a record over the size limit without reading it, counts it and logs it in one line', async () => {
    const small: Record<string, any> = { ...advisories[0], id: 'HUGE-0', aliases: [], references: [] };
    const huge = { ...small, id: 'HUGE-1', affected: [{ ...small.affected[0], versions: Array.from({ length: 100_000 }, (_, i) => `1.${i}.0`) }] };
    expect(Buffer.byteLength(JSON.stringify(huge))).toBeGreaterThan(maxRecordBytes);
    /** The zip with the huge entry's compressed data made garbage: read, it would be rejected as unreadable, not skipped. */
    const withGarbage = async (records: Record<string, unknown>[]) => {
      const zip = await zipOf(records);
      const name = zip.indexOf('HUGE-1.json');
      const data = name + 'HUGE-1.json'.length + zip.readUInt16LE(name - 2);
      return zip.fill(0xff, data + 100, data + 1000);
    };
    files.set('/huge/all.zip', await withGarbage([small, huge]));
    const result = await sync(source('huge', 'osv-zip', '/huge/all.zip'));
    expect(result).toMatchObject({ status: 'synced', counts: { received: 1, created: 1, rejected: 0, tooLarge: 1 } });
    const lines = log.entries.filter((e) => e.msg === 'source records over the size limit skipped');
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'source records over the size limit skipped',
        fields: { source: 'huge', tooLarge: 1, limitBytes: maxRecordBytes, first: ['HUGE-1.json'] },
      },
    ]);
    expect(log.entries.some((e) => e.msg === 'source records rejected')).toBe(false);
    expect(await t.db.prisma.issue.count({ where: { naturalKey: { startsWith: 'HUGE-' } } })).toBe(1);
    // Not remembered: the next read of the export counts it again.
    files.set('/huge/all.zip', await withGarbage([small, huge, { ...small, id: 'HUGE-2' }]));
    const again = await sync(source('huge', 'osv-zip', '/huge/all.zip'));
    expect(again).toMatchObject({ status: 'synced', counts: { skipped: 1, created: 1, tooLarge: 1 } });
  });

  it('with a modified_id.csv next to the zip, a later sync fetches only the records modified since the last one', async () => {
    type Dated = Record<string, any> & { id: string; modified: string };
    const base: Dated[] = advisories
      .slice(0, 5)
      .map((a, i) => ({ ...a, id: `INCR-${i}`, aliases: [], references: [], modified: `2026-01-0${i + 1}T00:00:00Z` }));
    const index = (records: Dated[]) =>
      [...records]
        .sort((a, b) => b.modified.localeCompare(a.modified))
        .map((r) => `${r.modified},${r.id}\n`)
        .join('');
    files.set('/incr/all.zip', await zipOf(base));
    files.set('/incr/modified_id.csv', index(base));
    expect(await sync(source('incr', 'osv-zip', '/incr/all.zip'))).toMatchObject({ status: 'synced', counts: { created: 5 } });

    // One record changes and one is added; all.zip stays as it was (OSV rebuilds it less often).
    const changed = { ...base[1]!, summary: 'A changed summary of this advisory', modified: '2026-02-01T00:00:00Z' };
    const added = { ...advisories[6], id: 'INCR-9', aliases: [], references: [], modified: '2026-02-02T00:00:00Z' };
    files.set('/incr/INCR-1.json', JSON.stringify(changed));
    files.set('/incr/INCR-9.json', JSON.stringify(added));
    files.set('/incr/modified_id.csv', index([...base.filter((r) => r.id !== 'INCR-1'), changed, added]));
    const requested = files.log.length;
    const second = await sync(source('incr', 'osv-zip', '/incr/all.zip'));
    expect(second).toMatchObject({ status: 'synced', counts: { received: 2, created: 1, updated: 1 } });
    expect(
      files.log
        .slice(requested)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/incr/INCR-1.json', '/incr/INCR-9.json', '/incr/modified_id.csv']);
    const summary = await t.db.prisma.issue.findUniqueOrThrow({ where: { naturalKey: 'INCR-1' }, select: { source: true } });
    expect((summary.source as { modified: string }).modified).toBe('2026-02-01T00:00:00.000Z');

    // Nothing modified since: only the index is read.
    const again = files.log.length;
    expect(await sync(source('incr', 'osv-zip', '/incr/all.zip'))).toMatchObject({ status: 'unchanged' });
    expect(files.log.slice(again).map((r) => r.path)).toEqual(['/incr/modified_id.csv']);
  });

  it('an index that is not one (HTML with a 200) is logged, and the sync reads the whole export instead', async () => {
    const records = advisories.slice(0, 3).map((a, i) => ({ ...a, id: `BADIDX-${i}`, aliases: [], references: [], modified: `2026-01-0${i + 1}T00:00:00Z` }));
    files.set('/badidx/all.zip', await zipOf(records));
    files.set('/badidx/modified_id.csv', `${records.map((r) => `${r.modified},${r.id}`).join('\n')}\n`);
    expect(await sync(source('badidx', 'osv-zip', '/badidx/all.zip'))).toMatchObject({ status: 'synced', counts: { created: 3 } });
    // The index host starts answering an error page; the zip gains a record.
    files.set('/badidx/modified_id.csv', '<!doctype html><html><body>Service Unavailable</body></html>');
    files.set(
      '/badidx/all.zip',
      await zipOf([...records, { ...advisories[5], id: 'BADIDX-9', aliases: [], references: [], modified: '2026-02-01T00:00:00Z' }]),
    );
    for (let round = 0; round < 2; round++) {
      const result = await sync(source('badidx', 'osv-zip', '/badidx/all.zip'));
      expect(result.status).not.toBe('failed');
    }
    expect(await t.db.prisma.issue.count({ where: { naturalKey: { startsWith: 'BADIDX-' } } })).toBe(4);
    expect(
      log.entries.some((e) => e.msg === 'source index unusable, reading the whole export' && /modified_id\.csv: line 1/.test(String(e.fields?.error))),
    ).toBe(true);
  });

  it.each([
    ['corrupt zip', 'osv-zip', '/bad/all.zip', Buffer.from('PK\u0003\u0004 this is not really a zip file'), /^not a readable zip file: /],
    [
      'bad EPSS CSV',
      'epss',
      '/bad/epss.csv',
      '#model_version:v1,score_date:2025-08-25T00:00:00+0000\ncve,epss,percentile\nCVE-2025-3248,lots,0.9\n',
      /^bad EPSS file: line 3: /,
    ],
    ['EPSS without its model line', 'epss', '/bad/epss2.csv', 'cve,epss,percentile\nCVE-2025-3248,0.5,0.9\n', /^bad EPSS file: line 1 must be #model_version/],
    [
      'truncated EPSS gzip',
      'epss',
      '/bad/epss3.csv.gz',
      gzipSync('#model_version:v1,score_date:2025-08-25T00:00:00+0000\ncve,epss,percentile\nCVE-2025-3248,0.5,0.9\n').subarray(0, 30),
      /^bad EPSS file: corrupt gzip data$/,
    ],
    ['malformed feed', 'feed', '/bad/feed.xml', '<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>', /^not a readable RSS or Atom feed: /],
    ['KEV that is not KEV', 'kev', '/bad/kev.json', '{"vulnerabilities": [{"cveID": "nope"}]}', /^not a KEV catalog: /],
  ] as const)('a %s gets a clear logged error and changes nothing', async (_label, kind, path, body, message) => {
    files.set(path, body);
    const before = await snapshot();
    const result = await sync(source(`bad-${kind}`, kind, path));
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(message);
    expect(log.entries).toContainEqual({
      level: 'error',
      msg: 'source sync failed',
      fields: expect.objectContaining({ source: `bad-${kind}`, error: result.error }),
    });
    expect((await t.db.prisma.sourceState.findUniqueOrThrow({ where: { name: `bad-${kind}` } })).lastError).toBe(result.error);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a source on a private address unless private sources are allowed', async () => {
    const result = await sync(source('private', 'kev', '/kev.json'), { allowPrivate: false });
    expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(/non-public address/) });
    expect(files.log.filter((r) => r.path === '/kev.json' && r.status === 200)).toHaveLength(1);
  });

  it("follows a redirect (EPSS's current file is one), checked like the first URL", async () => {
    files.redirect('/epss-current.csv.gz', '/epss.csv.gz');
    const result = await sync(source('epss-current', 'epss', '/epss-current.csv.gz'));
    expect(result.status).toBe('synced');
    files.redirect('/loop', '/loop');
    expect(await sync(source('loop', 'kev', '/loop'))).toMatchObject({ status: 'failed', error: 'source redirected more than 5 times' });
  });

  it('a failure the schedule has already reported logs at debug only, and its fetch retries too', async () => {
    const quiet = recordingLog();
    const failing = source('gone', 'kev', '/gone.json');
    await syncSource({ ...deps(), log: quiet }, failing, options({ repeatedFailure: () => false }));
    await syncSource({ ...deps(), log: quiet }, failing, options({ repeatedFailure: (message) => message === 'source answered HTTP 404' }));
    expect(quiet.entries.filter((e) => e.msg === 'source sync failed').map((e) => e.level)).toEqual(['error', 'debug']);
    expect(retryMinutes(1, 60)).toBe(1);
    expect([2, 3, 4, 7, 8].map((n) => retryMinutes(n, 60))).toEqual([2, 4, 8, 60, 60]);
    expect(retryMinutes(3, 3)).toBe(3);
  });

  it('reports a source that answers an HTTP error, and keeps its state row', async () => {
    const result = await sync(source('missing', 'kev', '/missing.json'));
    expect(result).toMatchObject({ status: 'failed', error: 'source answered HTTP 404' });
    expect(await t.db.prisma.sourceState.findUniqueOrThrow({ where: { name: 'missing' } })).toMatchObject({
      lastError: 'source answered HTTP 404',
      lastSuccessAt: null,
    });
  });
});

describe('malicious-package reports', () => {
  /** OpenSSF's shape: a short summary, one package, every version from 0. */
  const report = (n: number, name: string) => ({
    schema_version: '1.5.0',
    id: `MAL-2099-${n}`,
    published: '2025-11-01T00:00:00Z',
    modified: `2025-11-0${1 + (n % 5)}T00:00:00Z`,
    summary: `Malicious code in ${name} (npm)`,
    details:
      '\n---\n_-= Per source details. Do not edit below this line.=-_\n\n## Source: ossf-package-analysis\nThe package installs a post-install script that sends the environment to a remote host.\n',
    affected: [{ package: { ecosystem: 'npm', name }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] }],
    database_specific: { 'malicious-packages-origins': [{ source: 'ossf-package-analysis', sha256: 'abc' }] },
  });

  it('keep only id, modified time and hash of those with no AI/ML link; the others are judged and stored as ever', async () => {
    const plain = Array.from({ length: 30 }, (_, n) => report(n, `left-pad-clone-${n}`));
    const ai = report(99, 'llm-chat-helper');
    files.set('/mal/all.zip', await zipOf([...plain, ai]));
    const mal = source('mal', 'osv-zip', '/mal/all.zip');
    const first = await sync(mal, { chunkSize: 8 });
    expect(first).toMatchObject({ status: 'synced', counts: { received: 31, dormant: 30, created: 1, rejected: 0 } });
    const issues = await t.db.prisma.issue.findMany({ where: { naturalKey: { startsWith: 'MAL-2099-' } }, select: { naturalKey: true } });
    expect(issues.map((i) => i.naturalKey)).toEqual(['MAL-2099-99']);
    const dormant = await t.db.prisma.dormantRecord.findMany({ where: { source: 'mal' }, orderBy: { recordId: 'asc' } });
    expect(dormant).toHaveLength(30);
    expect(dormant[0]).toEqual({
      source: 'mal',
      key: 'MAL-2099-0.json',
      recordId: 'MAL-2099-0',
      modified: '2025-11-01T00:00:00.000Z',
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      judgedBy: expect.any(String),
    });

    // Unchanged: nothing read. Judged by another classifier version: only those entries read again.
    files.set('/mal/all.zip', await zipOf([...plain, ai, report(100, 'another-clone')]));
    expect(await sync(mal)).toMatchObject({ counts: { skipped: 31, dormant: 1, created: 0 } });
    await t.db.prisma.dormantRecord.updateMany({
      where: { source: 'mal', recordId: { in: ['MAL-2099-1', 'MAL-2099-2'] } },
      data: { judgedBy: 'an older classifier' },
    });
    files.set('/mal/all.zip', await zipOf([...plain, ai, report(100, 'another-clone'), report(101, 'yet-another')]));
    expect(await sync(mal)).toMatchObject({ counts: { skipped: 30, dormant: 3, created: 0 } });
    expect(await t.db.prisma.dormantRecord.count({ where: { source: 'mal', judgedBy: 'an older classifier' } })).toBe(0);
  });

  it('with a modified_id.csv, judging anew fetches only the reports another classifier version set aside', async () => {
    const reports = [300, 301, 302].map((n) => report(n, `plain-package-${n}`));
    files.set('/malx/all.zip', await zipOf(reports));
    files.set('/malx/modified_id.csv', reports.map((r) => `${r.modified},${r.id}\n`).join(''));
    const malx = source('malx', 'osv-zip', '/malx/all.zip');
    expect(await sync(malx)).toMatchObject({ counts: { dormant: 3 } });
    await t.db.prisma.dormantRecord.updateMany({ where: { source: 'malx', recordId: 'MAL-2099-301' }, data: { judgedBy: 'an older classifier' } });
    files.set('/malx/MAL-2099-301.json', JSON.stringify(reports[1]));
    const requested = files.log.length;
    expect(await sync(malx)).toMatchObject({ status: 'synced', counts: { received: 1, dormant: 1 } });
    expect(files.log.slice(requested).map((r) => r.path)).toEqual(['/malx/modified_id.csv', '/malx/MAL-2099-301.json']);
    expect(await t.db.prisma.dormantRecord.count({ where: { source: 'malx', judgedBy: 'an older classifier' } })).toBe(0);
  });

  it('a report that already has an issue is ingested, so its issue follows the record', async () => {
    await ingest(deps(), [report(200, 'was-stored-before')], { relay: false });
    files.set('/mal-known/all.zip', await zipOf([{ ...report(200, 'was-stored-before'), modified: '2025-12-01T00:00:00Z' }]));
    const outcome = await sync(source('mal-known', 'osv-zip', '/mal-known/all.zip'));
    expect(outcome).toMatchObject({ counts: { dormant: 0, updated: 1 } });
    expect(await t.db.prisma.dormantRecord.count({ where: { source: 'mal-known' } })).toBe(0);
  });
});

describe('feeds', () => {
  it('turn RSS and Atom entries into classified native items', async () => {
    files.set('/feed.rss', fixture('feed.rss'));
    files.set('/feed.atom', fixture('feed.atom'));
    const rss = await sync(source('rss', 'feed', '/feed.rss'));
    const atom = await sync(source('atom', 'feed', '/feed.atom'));
    expect(rss.counts).toMatchObject({ received: 2, created: 2 });
    expect(atom.counts).toMatchObject({ received: 1, created: 1 });
    const research = await issueBy('email agents');
    // The press reporting a study is news (docs/curation.md); an arXiv listing's entries are research (the hint, below).
    expect(research).toMatchObject({ sourceUrl: 'https://news.example/2025/06/prompt-injection-email-agents', issueType: 'news' });
    expect(await issueBy('general-purpose AI models')).toMatchObject({ issueType: 'regulatory' });
    // Not about AI: stored, never served.
    expect(await issueBy('Main Street')).toBeUndefined();
    expect(await t.db.prisma.issue.count({ where: { sourceUrl: 'https://news.example/2025/06/main-street', relevant: false } })).toBe(1);
  });

  it('keep only the title, link and date of a source whose summaries are off', async () => {
    files.set('/share-alike.rss', fixture('news-thehackernews.rss'));
    const result = await sync({ ...source('share-alike', 'feed', '/share-alike.rss'), summaries: false });
    expect(result.counts).toMatchObject({ received: 15, created: 15 });
    const stored = await t.db.prisma.issue.findMany({
      where: { sourceUrl: { startsWith: 'https://thehackernews.com/' } },
      select: { title: true, summary: true, source: true },
    });
    expect(stored).toHaveLength(15);
    // Nothing of the entries' descriptions is kept, in the served summary or the stored record.
    const ivanti = stored.find((i) => i.title.startsWith('Critical Ivanti Flaw'))!;
    expect(ivanti.summary).not.toMatch(/Ivanti has disclosed/);
    for (const issue of stored) expect(JSON.stringify(issue)).not.toMatch(/Ivanti has disclosed|has been traced further back|The rules have changed/);
  });

  it('attach an entry linking an advisory page to the advisory, and keep a news article about its CVE apart, cross-referenced', async () => {
    const before = await issueBy('CVE-2024-4888');
    const entries = [
      ['Arbitrary file deletion in litellm (CVE-2024-4888)', 'https://github.com/advisories/GHSA-3xr8-qfvj-9p9j'],
      ['LiteLLM flaw CVE-2024-4888 lets users delete files on AI gateways', 'https://news.example/2024/06/litellm-file-deletion'],
    ].map(
      ([title, link]) =>
        `<item><title>${title}</title><link>${link}</link><pubDate>Thu, 06 Jun 2024 08:00:00 GMT</pubDate><description>${title}.</description></item>`,
    );
    files.set(
      '/advisories.rss',
      Buffer.from(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>a</title><link>https://news.example/</link><description>d</description>${entries.join('')}</channel></rss>`,
      ),
    );
    expect((await sync(source('advisories', 'feed', '/advisories.rss'))).counts).toMatchObject({ received: 2, created: 1, updated: 1 });
    const issues = (await (await t.fetch('/api/v1/issues?search=CVE-2024-4888')).json()).data;
    expect(issues).toHaveLength(2);
    const article = issues.find((i: { sourceUrl: string }) => i.sourceUrl.startsWith('https://news.example/'));
    expect(article).toMatchObject({ cveId: 'CVE-2024-4888', issueType: 'news', crossRefCount: 1 });
    expect(await issueBy('GHSA-3xr8-qfvj-9p9j')).toMatchObject({ id: before.id, crossRefCount: before.crossRefCount + 1 });
  });

  it("carry the source's hints: an arXiv listing's entries are research with its labels", async () => {
    const entry = `<item><title>Jailbreak prompts against LLM guardrails under the new AI guidance</title>
      <link>https://arxiv.example/abs/2506.00001</link><pubDate>Thu, 12 Jun 2025 08:00:00 GMT</pubDate>
      <description>We evaluate jailbreak attacks on large language model guardrails named in regulatory guidance.</description></item>`;
    files.set(
      '/listing.rss',
      Buffer.from(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>listing</title><link>https://arxiv.example/</link><description>d</description>${entry}</channel></rss>`,
      ),
    );
    const hinted: SourceDefinition = { ...source('arxiv', 'feed', '/listing.rss'), issueType: 'research', labels: ['security', 'policy'] };
    expect((await sync(hinted)).counts).toMatchObject({ received: 1, created: 1 });
    const issue = await issueBy('guardrails');
    // The text alone reads as regulatory; the source says research. "policy" names another type, so it is left out.
    expect(issue).toMatchObject({ issueType: 'research' });
    expect([...issue.labels].sort()).toEqual(['research', 'safety', 'security']);
  });
});

describe('freshness', () => {
  it('stats say when the feed last received new data and from which sources', async () => {
    const { data } = await (await t.fetch('/api/v1/stats')).json();
    const names = data.newDataSources.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['osv', 'kev', 'epss']));
    const times = data.newDataSources.map((s: { lastNewDataAt: string }) => s.lastNewDataAt);
    expect(times).toEqual([...times].sort().reverse());
    // The latest delivery: not a change made by hand, nor the sample's load.
    expect(data.lastNewDataAt).toBe(times[0]);
    const gql = await t.graphql('{ stats { data { lastNewDataAt newDataSources { name lastNewDataAt } } } }');
    expect(gql.body.data.stats.data).toEqual({ lastNewDataAt: data.lastNewDataAt, newDataSources: data.newDataSources });
  });
});

describe('source status', () => {
  it('shows each configured source on GET /ready and the admin route (REST and GraphQL)', async () => {
    const configured = [source('kev', 'kev', '/kev.json'), source('missing', 'kev', '/missing.json'), source('never', 'feed', '/never.xml')];
    const admin = await createTestApp({ sources: configured, adminApiKey: 'status-admin-key' }, t.db);
    try {
      const ready = await (await admin.fetch('/ready')).json();
      expect(ready).toMatchObject({
        status: 'ready',
        sources: [
          { name: 'kev', kind: 'kev', lastSuccessAt: expect.any(String), lastError: null },
          { name: 'missing', kind: 'kev', lastSuccessAt: null, lastError: 'source answered HTTP 404' },
          { name: 'never', kind: 'feed', lastSuccessAt: null, lastError: null },
        ],
      });
      expect((await admin.fetch('/api/v1/admin/sources')).status).toBe(401);
      const rest = await (await admin.fetch('/api/v1/admin/sources', { headers: { authorization: 'Bearer status-admin-key' } })).json();
      expect(rest.data.map((s: { name: string }) => s.name)).toEqual(['kev', 'missing', 'never']);
      expect(rest.data[0]).toMatchObject({ location: files.url('/kev.json'), intervalMinutes: 60, counts: { received: 1405, updated: 2 } });
      const gql = await admin.graphql('{ sources { data { name lastError counts { received } } } }', {}, { authorization: 'Bearer status-admin-key' });
      expect(gql.body.data.sources.data[1]).toEqual({ name: 'missing', lastError: 'source answered HTTP 404', counts: null });
    } finally {
      await admin.close();
    }
  });
});

describe.runIf(testDatabaseUrl)('two instances on PostgreSQL', () => {
  it('never sync the same source at once', async () => {
    const records = advisories.map((a, i) => ({ ...a, id: `TWIN-${String(i).padStart(4, '0')}`, aliases: [], references: [] }));
    files.set('/twin/all.zip', await zipOf(records));
    const other = await openDatabase({ kind: 'postgres', url: t.db.url! });
    try {
      const twin = source('twin', 'osv-zip', '/twin/all.zip');
      const outcomes = await Promise.all([
        syncSource(deps(), twin, options({ chunkSize: 10 })),
        syncSource({ ...deps(), prisma: other.prisma, db: other }, twin, options({ chunkSize: 10 })),
      ]);
      const statuses = outcomes.map((o) => o.status).sort();
      expect(statuses).toEqual(['busy', 'synced']);
      expect(outcomes.find((o) => o.status === 'synced')!.counts.created).toBe(records.length);
      // Neither kept its lease: the next sync takes the source at once.
      expect(await t.db.prisma.sourceLease.count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('wait for a lease another instance holds, and take over one whose holder died (expired)', async () => {
    files.set('/leased.xml', fixture('feed.atom'));
    const leased = source('leased', 'feed', '/leased.xml');
    const lease = (seconds: number) =>
      t.db.prisma.sourceLease.upsert({
        where: { name: 'leased' },
        create: { name: 'leased', owner: 'elsewhere', expiresAt: new Date(Date.now() + seconds * 1000) },
        update: { owner: 'elsewhere', expiresAt: new Date(Date.now() + seconds * 1000) },
      });
    await lease(60);
    expect((await sync(leased)).status).toBe('busy');
    await lease(-1);
    expect((await sync(leased)).status).toBe('synced');
    expect(await t.db.prisma.sourceLease.count()).toBe(0);
  });
});

describe('source configuration', () => {
  it('is checked like every other setting, one line per problem', () => {
    const problems = (env: Record<string, string>) => {
      try {
        parseConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ SOURCES: 'not json' })).toEqual(['SOURCES: must be a JSON array of sources ({name, kind, location, intervalMinutes?})']);
    expect(
      problems({
        SOURCES: JSON.stringify([
          { name: 'Bad Name', kind: 'osv-zip', location: 'https://a.example/all.zip' },
          { name: 'web', kind: 'kev', location: 'http://a.example/kev.json' },
          { name: 'dir', kind: 'osv-dir', location: 'https://a.example/tree' },
          { name: 'x', kind: 'nvd', location: '/tmp/x' },
          { name: 'hint', kind: 'kev', location: '/tmp/kev.json', issueType: 'research' },
          { name: 'label', kind: 'feed', location: '/tmp/f.xml', labels: ['gossip'] },
        ]),
      }),
    ).toEqual([
      'SOURCES: 0.name: must be lowercase letters, digits, - or _ (at most 63)',
      'SOURCES: 1.location: must be an https:// URL or a local path',
      'SOURCES: 2.location: an osv-dir location must be a local directory',
      'SOURCES: 3.kind: Invalid option: expected one of "osv-zip"|"osv-dir"|"kev"|"epss"|"feed"',
      'SOURCES: 4.kind: issueType, labels and summaries are for a feed source only',
      'SOURCES: 5.labels.0: Invalid option: expected one of "security"|"research"|"industry"|"policy"|"privacy"|"safety"',
    ]);
    expect(problems({ SOURCES_FILE: '/nonexistent/sources.json' })).toEqual(['SOURCES_FILE: cannot read /nonexistent/sources.json (ENOENT)']);
    const config = parseConfig({ SOURCES: JSON.stringify([{ name: 'kev', kind: 'kev', location: 'data/kev/known_exploited_vulnerabilities.json' }]) });
    expect(config.sources).toEqual([{ name: 'kev', kind: 'kev', location: 'data/kev/known_exploited_vulnerabilities.json', intervalMinutes: 60 }]);
  });
});
