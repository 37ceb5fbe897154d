// Acceptance of a live start: the server as `npm start` runs it, on its default source list, with
// every upstream's host swapped for a local HTTPS server that serves local copies at the same
// paths: OSV ecosystem exports zipped from the sample's real advisories (CC-BY-4.0), CISA's
// bundled KEV catalog, an EPSS CSV in FIRST's layout behind the same kind of redirect FIRST
// uses, an arXiv cs.CR listing of real papers and a real capture of a security news feed
// (test/fixtures/sources, see its README; their entries dated today, as a live listing is). The same start fills the feed: stats count today's items and
// name the sources that brought data, Langflow's KEV entry (no advisory covers it) is served as a
// known-exploited vulnerability, and its day's digest ranks it first with its action line.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import yazl from 'yazl';
import { defaultSourcesUrl } from '../../src/config.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { loadAdvisories } from '../helpers/samples.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const defaults = JSON.parse(readFileSync(defaultSourcesUrl, 'utf8')) as { name: string; kind: string; location: string }[];
const fixture = (name: string) => readFileSync(new URL(`../fixtures/sources/${name}`, import.meta.url));
const adminKey = 'live-acceptance-admin-key-0123';
let dir: string | undefined;
let files: FileServer | undefined;
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop();
  await files?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function zipOf(records: Record<string, unknown>[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r, null, 2)), `${String(r.id)}.json`);
  zip.end();
  return buffer(zip.outputStream);
}

/** A feed fixture with every date set to `now`: today's listing. */
const today = (feed: Buffer, now: Date) =>
  feed
    .toString('utf8')
    .replace(/<(published|updated)>[^<]*</g, `<$1>${now.toISOString()}<`)
    .replace(/<pubDate>[^<]*</g, `<pubDate>${now.toUTCString()}<`);

it('a default start pointed at local copies of its sources fills the feed', async () => {
  const started = new Date();
  files = await startFileServer();
  const advisories = loadAdvisories();
  const ecosystem = { 'osv-pypi': 'PyPI', 'osv-npm': 'npm', 'osv-go': 'Go', 'osv-maven': 'Maven', 'osv-crates': 'crates.io' } as Record<string, string>;
  for (const source of defaults) {
    const path = new URL(source.location).pathname;
    if (source.kind === 'osv-zip') {
      const of = advisories.filter((a) => (a.affected ?? []).some((x: { package: { ecosystem: string } }) => x.package.ecosystem === ecosystem[source.name]));
      files.set(path, await zipOf(of));
    } else if (source.kind === 'kev') files.set(path, readFileSync(new URL('../../data/kev/known_exploited_vulnerabilities.json', import.meta.url)));
    else if (source.kind === 'epss') {
      files.redirect(path, '/epss_scores-2025-08-25.csv.gz');
      files.set('/epss_scores-2025-08-25.csv.gz', gzipSync(fixture('epss.csv')));
    } else files.set(path, today(fixture(source.name.startsWith('arxiv-') ? 'arxiv-cs-cr.atom' : 'news-thehackernews.rss'), started));
  }
  dir = await mkdtemp(join(tmpdir(), 'secwire-live-'));
  const local = defaults.map((s) => ({ ...s, location: files!.url(new URL(s.location).pathname) }));
  await writeFile(join(dir, 'sources.json'), JSON.stringify(local));
  await writeFile(join(dir, 'ca.pem'), files.ca);
  server = await startServerProcess({
    DATA_DIR: join(dir, 'db'),
    SEED_SAMPLE_DATA: 'true',
    LOG_LEVEL: 'info',
    ADMIN_API_KEY: adminKey,
    SOURCES: '',
    SOURCES_FILE: join(dir, 'sources.json'),
    SOURCES_ALLOW_PRIVATE: 'true',
    NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
  });
  const passAt = await server.waitForLog((l) => l.msg?.startsWith("sources' first sync done") ?? false);
  const pass = server.lines()[passAt] as { failed?: unknown[] };
  expect(pass.failed).toEqual([]);
  const get = async (path: string, init?: RequestInit) => (await fetch(`${server!.base}${path}`, init)).json();

  // Freshness: today's listing items are counted, and the sources that brought data are named.
  const { data: stats } = await get('/api/v1/stats');
  expect(stats.last24h).toBeGreaterThan(0);
  expect(new Date(stats.lastNewDataAt).getTime()).toBeGreaterThanOrEqual(started.getTime());
  const names: string[] = stats.newDataSources.map((s: { name: string }) => s.name);
  expect(names).toContain('cisa-kev');
  // The two listings serve the same entries here: whichever synced first brought them.
  expect(names.some((n) => n.startsWith('arxiv-'))).toBe(true);

  // The listing's papers and the news are judged like any item: the jailbreak paper is served as
  // research, its abstract without the listing's announcement line; a VPN exploitation story is not AI security.
  const research = await get('/api/v1/issues?issueType=research&limit=100');
  const poetry = research.data.find((i: { sourceUrl: string }) => i.sourceUrl === 'https://arxiv.org/abs/2511.15304');
  expect(poetry?.title).toBe('Adversarial Poetry as a Universal Single-Turn Jailbreak Mechanism in Large Language Models');
  expect(poetry.summary).toMatch(/^We present evidence that adversarial poetry/);
  const all = await get(`/api/v1/issues?limit=100&since=${new Date(started.getTime() - 60_000).toISOString()}`);
  const recent = all.data.map((i: { sourceUrl: string }) => i.sourceUrl);
  expect(recent).toContain(poetry.sourceUrl);
  expect(recent).not.toContain('https://thehackernews.com/2025/04/critical-ivanti-flaw-actively-exploited.html');

  // KEV's AI software that no advisory covers: served, known exploited.
  const exploited = await get('/api/v1/issues?knownExploited=true');
  const langflow = exploited.data.find((i: { cveId: string }) => i.cveId === 'CVE-2025-3248');
  expect(langflow).toMatchObject({
    issueType: 'vulnerability',
    kevDateAdded: '2025-05-05',
    exploitMaturity: 'active',
    sourceUrl: 'https://nvd.nist.gov/vuln/detail/CVE-2025-3248',
  });

  // Its day's digest ranks it first, with what to do.
  const res = await fetch(`${server.base}/api/v1/admin/digests`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ date: '2025-05-05' }),
  });
  expect(res.status).toBe(200);
  const { data: digest } = await res.json();
  const top = digest.content.slice(digest.content.indexOf('## Top items'));
  expect(top).toMatch(
    /^## Top items\n\n1\. \[Langflow Missing Authentication Vulnerability \(CVE-2025-3248\)\]\(https:\/\/nvd\.nist\.gov\/vuln\/detail\/CVE-2025-3248\): [^\n]*known exploited \(CISA KEV since 2025-05-05\)\n {3}- Action: Apply mitigations per vendor instructions/,
  );
  expect(digest.content).toMatch(/## Exploited now\n\n- \[Langflow Missing Authentication Vulnerability/);
}, 600_000);
