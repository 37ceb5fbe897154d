// The first sync of the default source set, as a newcomer's `npm start` runs it:
//   npm run bench -- first-sync [--pypi N] [--npm N] [--go N] [--maven N] [--crates N] [--scale 1]
//                               [--epss-rows 250000] [--ai-share 0.05] [--db pglite|postgres]
//                               [--copies <dir>] [--mem-trace <file>] [--node-flags='<flags>']
// Every upstream of data/sources/default-sources.json is served by a local HTTPS server at its own
// path, from local copies of the upstreams' real size (data/sources/README.md, "Volumes"): one OSV
// export zip per ecosystem (bench/osv-export.ts: the ecosystem's share of malicious-package reports
// in their real shape, the rest real advisories cloned under new ids, `--ai-share` of those AI/ML;
// `--scale` multiplies every count, for a short run), the bundled KEV catalog, an
// EPSS CSV in FIRST's layout (gzip, behind a redirect as FIRST serves it; the sample's CVEs, the
// exports' CVEs and made-up ones up to `--epss-rows`), the real arXiv listing and news capture of
// test/fixtures/sources for the feeds. The server starts as `npm start` runs it (bin/secwire) on a fresh
// database with the sample seed off, so the first served issue is one the sources brought.
// Measured: time to listening, to the first served issue, to every source synced; records
// received per second over the whole first sync; the server's peak RSS (bench/peak-rss.mjs), its
// RSS 60 s after the sync, the database's size on disk; then a second start on the same database
// with nothing changed upstream, to every source synced again.
// `--copies`: keep the export zips in that directory and reuse them in later runs. `--mem-trace`:
// the server's output, with a line every two seconds of where its memory is (bench/mem-trace.mjs), to
// that file. `--node-flags`: Node flags for bin/secwire to add (V8's heap settings, say).
// Results replace the "First sync" section of bench/README.md.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { defaultSourcesUrl } from '../src/config.js';
import { startFileServer } from '../test/helpers/file-server.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { buildOsvZip } from './osv-export.js';
import { writeReadmeSection } from './readme.js';
import { scratchPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    pypi: { type: 'string' },
    npm: { type: 'string' },
    go: { type: 'string' },
    maven: { type: 'string' },
    crates: { type: 'string' },
    scale: { type: 'string', default: '1' },
    'epss-rows': { type: 'string', default: '250000' },
    'ai-share': { type: 'string', default: '0.05' },
    db: { type: 'string', default: 'pglite' },
    'mem-trace': { type: 'string' },
    copies: { type: 'string' },
    'node-flags': { type: 'string', default: '' },
  },
});
/** The upstream exports as counted (data/sources/README.md, "Volumes"): records, and the share that are MAL-* reports. */
const upstream: Record<string, { records: number; malShare: number; ecosystem: string; flag: string | undefined }> = {
  'osv-pypi': { records: 18_000, malShare: 0.64, ecosystem: 'PyPI', flag: values.pypi },
  'osv-npm': { records: 218_000, malShare: 0.98, ecosystem: 'npm', flag: values.npm },
  'osv-go': { records: 6_000, malShare: 0.04, ecosystem: 'Go', flag: values.go },
  'osv-maven': { records: 6_000, malShare: 0.01, ecosystem: 'Maven', flag: values.maven },
  'osv-crates': { records: 2_500, malShare: 0.05, ecosystem: 'crates.io', flag: values.crates },
};
const scale = Number(values.scale);
const exportSizes: Record<string, number> = Object.fromEntries(
  Object.entries(upstream).map(([name, u]) => [name, u.flag !== undefined ? Number(u.flag) : Math.round(u.records * scale)]),
);
const epssRows = Number(values['epss-rows']);
const aiShare = Number(values['ai-share']);
const root = new URL('../', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(`../test/fixtures/sources/${name}`, import.meta.url));
const defaults = JSON.parse(readFileSync(defaultSourcesUrl, 'utf8')) as { name: string; kind: string; location: string }[];

/** FIRST's layout: a model line, the header, then one row per CVE (scores made up, deterministic). */
function epssCsv(cves: string[]): Buffer {
  const rows = ['#model_version:v2025.03.14,score_date:2025-11-27T00:00:00+0000', 'cve,epss,percentile'];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const cve of cves) {
    const score = random() ** 4;
    rows.push(`${cve},${score.toFixed(5)},${Math.min(1, score ** 0.25).toFixed(5)}`);
  }
  return gzipSync(rows.join('\n'));
}

const dir = await mkdtemp(join(tmpdir(), 'secwire-bench-first-sync-'));
if (values.copies) await mkdir(values.copies, { recursive: true });
const files = await startFileServer();
const pg = values.db === 'postgres' ? await scratchPostgres() : undefined;
try {
  // ---- local copies of every default source, at the upstream's path
  const built = performance.now();
  const sizes: string[] = [];
  let firstId = 0;
  const exportCves: string[] = [];
  for (const source of defaults) {
    const path = new URL(source.location).pathname;
    if (source.kind === 'osv-zip') {
      const records = exportSizes[source.name] ?? 0;
      const { malShare, ecosystem } = upstream[source.name]!;
      // Built once per shape in --copies (minutes at the default volumes), else for this run only.
      const zip = join(values.copies ?? dir, `${source.name}-${records}-${malShare}-${aiShare}-${firstId}.zip`);
      if (!values.copies || !(await stat(zip).catch(() => undefined))) await buildOsvZip(zip, { records, aiShare, firstId, malShare, ecosystem });
      for (let i = 0; i < records; i++) exportCves.push(`CVE-2099-${String(100000 + firstId + i)}`);
      firstId += records;
      files.set(path, await readFile(zip));
      sizes.push(
        `${source.name} ${records.toLocaleString('en')} records, ${Math.round(upstream[source.name]!.malShare * 100)}% MAL (${((await stat(zip)).size / 2 ** 20).toFixed(0)} MB)`,
      );
    } else if (source.kind === 'kev') {
      const kev = readFileSync(new URL('../data/kev/known_exploited_vulnerabilities.json', import.meta.url));
      files.set(path, kev);
      sizes.push(`${source.name} ${(JSON.parse(kev.toString()) as { vulnerabilities: unknown[] }).vulnerabilities.length.toLocaleString('en')} entries`);
    } else if (source.kind === 'epss') {
      const kevCves = (
        JSON.parse(readFileSync(new URL('../data/kev/known_exploited_vulnerabilities.json', import.meta.url), 'utf8')) as {
          vulnerabilities: { cveID: string }[];
        }
      ).vulnerabilities.map((v) => v.cveID);
      const cves = [...new Set([...kevCves, ...exportCves])];
      for (let n = 0; cves.length < epssRows; n++) cves.push(`CVE-${1999 + (n % 27)}-${String(900000 + n)}`);
      const csv = epssCsv(cves.slice(0, epssRows));
      files.redirect(path, '/epss_scores-2025-11-27.csv.gz');
      files.set('/epss_scores-2025-11-27.csv.gz', csv);
      sizes.push(`${source.name} ${epssRows.toLocaleString('en')} rows (${(csv.length / 2 ** 20).toFixed(1)} MB gzip)`);
    } else {
      const feed = source.name.startsWith('arxiv-') ? 'arxiv-cs-cr.atom' : 'news-thehackernews.rss';
      files.set(path, fixture(feed));
      sizes.push(`${source.name} ${feed}`);
    }
  }
  const buildSeconds = (performance.now() - built) / 1000;
  console.log(`local copies ready in ${buildSeconds.toFixed(0)} s: ${sizes.join('; ')}`);
  const local = defaults.map((s) => ({ ...s, location: files.url(new URL(s.location).pathname) }));
  await writeFile(join(dir, 'sources.json'), JSON.stringify(local));
  await writeFile(join(dir, 'ca.pem'), files.ca);
  execFileSync(process.execPath, [new URL('scripts/build.mjs', root).pathname], { stdio: 'inherit' });

  // ---- the start, as `npm start` runs it: bin/secwire with its malloc and V8 settings
  const start = () =>
    startServerProcess(
      {
        DATA_DIR: join(dir, 'db'),
        ...(pg ? { DATABASE_URL: pg.url! } : {}),
        SEED_SAMPLE_DATA: 'false',
        LOG_LEVEL: 'info',
        SOURCES: '',
        SOURCES_FILE: join(dir, 'sources.json'),
        SOURCES_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
        NODE_OPTIONS: [
          `--import=${new URL('peak-rss.mjs', import.meta.url).href}`,
          ...(values['mem-trace'] ? [`--import=${new URL('mem-trace.mjs', import.meta.url).href}`] : []),
        ].join(' '),
      },
      values['node-flags'].split(' ').filter(Boolean),
      new URL('bin/secwire', root).pathname,
    );
  /** Until the first pass's one line; throws with the failures when a source failed. */
  const firstPass = async (server: Awaited<ReturnType<typeof start>>) => {
    const at = await server.waitForLog((l) => l.msg?.startsWith("sources' first sync done") ?? false);
    const line = server.lines()[at] as { failed: { source: string; error: string }[] };
    if (line.failed.length) throw new Error(`sources failed: ${JSON.stringify(line.failed)}`);
  };
  const started = performance.now();
  const server = await start();
  const listeningSeconds = (performance.now() - started) / 1000;
  let firstServedSeconds: number | undefined;
  const watchFirst = (async () => {
    while (firstServedSeconds === undefined) {
      const res = await fetch(`${server.base}/api/v1/issues?limit=1`, { headers: { 'cache-control': 'no-cache' } }).catch(() => undefined);
      const body = res?.ok ? ((await res.json()) as { meta: { total: number } }) : undefined;
      if (body && body.meta.total > 0) firstServedSeconds = (performance.now() - started) / 1000;
      else await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await firstPass(server);
  const allSeconds = (performance.now() - started) / 1000;
  const synced = defaults.map((source) => {
    const line = server.lines().find((l) => l.msg === 'source synced' && (l as { source?: string }).source === source.name) as {
      received?: number;
      dormant?: number;
      seconds?: number;
    };
    return { source: source.name, received: line.received ?? 0, dormant: line.dormant ?? 0, seconds: line.seconds ?? 0 };
  });
  await watchFirst;
  const stats = (await (await fetch(`${server.base}/api/v1/stats`, { headers: { 'cache-control': 'no-cache' } })).json()) as { data: { totalIssues: number } };
  // Settled: a minute after the sync, as an operator's monitor would see it.
  await new Promise((r) => setTimeout(r, 60_000));
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const rssAfter = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  // The peak of the start and the sync, before the stop: the exit's own peak (bench/peak-rss.mjs) includes shutting down.
  const peakBeforeStop = Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
  await server.stop();
  // The server's whole output, the memory trace among it, for reading beside the sources' log lines.
  if (values['mem-trace'])
    await writeFile(
      values['mem-trace'],
      server
        .lines()
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
  const peak = server
    .lines()
    .map((l) => /^peak-rss-mb (\d+)$/.exec(l.msg ?? '')?.[1])
    .filter(Boolean)
    .at(-1);
  const megabytes = (path: string) => Number(execFileSync('du', ['-sm', path]).toString().split(/\s/)[0]);
  const diskMb = pg ? undefined : megabytes(join(dir, 'db'));
  const walMb = pg ? undefined : megabytes(join(dir, 'db', 'pg_wal'));

  // ---- a second start on the same database, nothing changed upstream
  const again = performance.now();
  const second = await start();
  await firstPass(second);
  const secondSeconds = (performance.now() - again) / 1000;
  await second.stop();
  const received = synced.reduce((sum, s) => sum + s.received, 0);
  const osv = synced.filter((s) => s.source in exportSizes);
  const osvReceived = osv.reduce((sum, s) => sum + s.received, 0);
  const dormant = synced.reduce((sum, s) => sum + s.dormant, 0);

  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const perSource = synced.map((s) => `| ${s.source} | ${s.received.toLocaleString('en')} | ${s.dormant.toLocaleString('en')} | ${s.seconds.toFixed(1)} |`);
  // Each database has a section of its own: the embedded one in README.md, PostgreSQL's in components.md.
  const marker = pg ? 'first-sync-postgres' : 'first-sync';
  const section = [
    `<!-- ${marker}:begin -->`,
    `## First sync of the default sources (\`npm run bench -- first-sync${pg ? ' --db postgres' : ''}\`)`,
    '',
    `Measured ${when} UTC, load average ${loadavg()[0]!.toFixed(1)} at the end, ${pg ? 'PostgreSQL' : 'PGlite (the default start)'}. bin/secwire on a fresh`,
    'database, data/sources/default-sources.json pointed at a local HTTPS server with copies sized like the upstreams',
    `(${sizes.join('; ')}).`,
    '',
    '| figure | value |',
    '|---|---|',
    `| start to listening | ${listeningSeconds.toFixed(1)} s |`,
    `| **start to the first served issue** | **${firstServedSeconds!.toFixed(1)} s** |`,
    `| start to every source synced | ${allSeconds.toFixed(1)} s |`,
    `| records received (all sources) / **records/s** over that time | ${received.toLocaleString('en')} / **${Math.round(received / allSeconds).toLocaleString('en')}** |`,
    `| OSV records / of them set aside (MAL-*, no AI/ML evidence: a DormantRecord row only) | ${osvReceived.toLocaleString('en')} / ${dormant.toLocaleString('en')} |`,
    `| issues served at the end | ${stats.data.totalIssues.toLocaleString('en')} |`,
    `| **server peak RSS** (start and sync; with the stop) | **${peakBeforeStop.toFixed(0)} MB** (${peak ?? '?'} MB) |`,
    `| **RSS 60 s after the sync** | **${rssAfter.toFixed(0)} MB** |`,
    ...(diskMb !== undefined ? [`| **database on disk** (of it WAL) | **${diskMb} MB** (${walMb} MB) |`] : []),
    `| **second start, nothing changed: to every source synced** | **${secondSeconds.toFixed(1)} s** |`,
    `<!-- ${marker}:end -->`,
  ].join('\n');
  await writeReadmeSection(marker, section);
  console.log(section);
  // Each source's own time, for the terminal: two sources sync side by side, so these add up to more than the total.
  console.log(['| source | records received | set aside | sync s (its own log line) |', '|---|---|---|---|', ...perSource].join('\n'));
} finally {
  await files.close();
  await pg?.close();
  await rm(dir, { recursive: true, force: true });
}
process.exit(0);
