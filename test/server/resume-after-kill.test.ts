// A first sync killed part-way (SIGKILL: no shutdown, nothing flushed) and the server started
// again on the same embedded database, as `npm start` runs it: the second start reads only the
// records the first did not store (the rest are skipped by fingerprint), and every record is
// served whole: each chunk is one transaction, so a kill leaves a chunk stored or not at all.
import { get } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer, json } from 'node:stream/consumers';
import { afterAll, expect, it } from 'vitest';
import yazl from 'yazl';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { clonedAdvisories } from '../helpers/samples.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const started: { dir?: string; files?: FileServer; server?: ServerProcess } = {};
afterAll(async () => {
  await started.server?.stop();
  await started.files?.close();
  if (started.dir) await rm(started.dir, { recursive: true, force: true });
});

const total = 3000;

it('a first sync killed part-way resumes where it stopped on the next start, and serves no record half-written', async () => {
  const records = clonedAdvisories(total, '5e1f');
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${r.id}.json`);
  zip.end();
  const files = (started.files = await startFileServer());
  files.set('/osv/all.zip', await buffer(zip.outputStream));
  const dir = (started.dir = await mkdtemp(join(tmpdir(), 'secwire-resume-')));
  await writeFile(join(dir, 'sources.json'), JSON.stringify([{ name: 'clones', kind: 'osv-zip', location: files.url('/osv/all.zip') }]));
  await writeFile(join(dir, 'ca.pem'), files.ca);
  const env = {
    DATA_DIR: join(dir, 'db'),
    LOG_LEVEL: 'info',
    SOURCES: '',
    SOURCES_FILE: join(dir, 'sources.json'),
    SOURCES_ALLOW_PRIVATE: 'true',
    NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
  };
  // Each read on a connection of its own: the server's event loop is busy with the sync, and a
  // kept-alive connection it closes late can reset the next request sent on it.
  const getJson = (path: string) =>
    new Promise<unknown>((resolve, reject) =>
      get(`${server.base}${path}`, { agent: false, headers: { 'cache-control': 'no-cache' } }, (res) => json(res).then(resolve, reject)).on('error', reject),
    );
  const served = async () => ((await getJson('/api/v1/issues?limit=1')) as { meta: { total: number } }).meta.total;

  // The first start: killed once two chunks are committed (their events are relayed after the
  // commit; the second chunk is read only after the first one's fingerprints are stored), well
  // before the sync is done.
  let server = (started.server = await startServerProcess(env));
  for (let relayed = 0, at = -1; relayed < 2; ) {
    at = await server.waitForLog((l) => l.msg === 'issue events relayed', at + 1);
    relayed += (server.lines()[at] as { relayed: number }).relayed;
  }
  server.child.kill('SIGKILL');
  await server.stop();
  expect(server.lines().some((l) => l.msg === 'source synced')).toBe(false);

  // The second start reads what the first did not store, and no more.
  server = started.server = await startServerProcess(env);
  const at = await server.waitForLog((l) => l.msg === 'source synced');
  const synced = server.lines()[at] as { received: number; skipped: number; created: number; unchanged: number; rejected: number };
  expect(synced.skipped).toBeGreaterThan(0);
  expect(synced.skipped + synced.received).toBe(total);
  // A chunk stored just before the kill, its fingerprints not yet: read again, stored unchanged.
  expect(synced.created + synced.unchanged).toBe(synced.received);
  expect(synced.rejected).toBe(0);

  // What the first start stored is served, whole, beside the rest.
  expect(await served()).toBeGreaterThan(synced.skipped);
  const page = (await getJson('/api/v1/issues?limit=100')) as { data: Record<string, unknown>[] };
  for (const issue of page.data) expect(issue).toMatchObject({ title: expect.any(String), severity: expect.any(String), sourceUrl: expect.any(String) });
}, 300_000);
