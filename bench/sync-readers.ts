// A sync of an OSV zip whose entries are large (issue 27: 400 entries of 15.9 MB stalled every
// other request for 9.2 s) while a reader reads: the reader's latency during the sync, against the
// same reader with no sync, with a real listening server on a fresh database. The zip is served
// over HTTPS from 127.0.0.1; each entry is a real AI/ML advisory whose affected versions list is
// padded to the entry size (OSV records of packages with long histories look like this).
//
// It measures the code of the checkout it runs in: run it in two worktrees, one after the other,
// to compare two commits. Entries over the record size limit (src/sources/records.ts,
// maxRecordBytes) are skipped unread; entries just under it take the whole path (read, parse in
// the worker thread, classify, store).
//
//   npx tsx bench/sync-readers.ts [entries=6] [entryMb=15.9] [pglite|postgres]
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import yazl from 'yazl';
import { defaultClassifier } from '../src/ingest/ingest.js';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { syncSource } from '../src/sources/sync.js';
import { startFileServer } from '../test/helpers/file-server.js';
import { scratchPGlite, scratchPostgres } from './scratch-databases.js';

const entries = Number(process.argv[2] ?? 6);
const entryBytes = Math.round(Number(process.argv[3] ?? 15.9) * 1024 * 1024);
const database = process.argv[4] === 'postgres' ? 'postgres' : 'pglite';
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

const advisoriesDir = new URL('../data/advisories/', import.meta.url);
const advisory = JSON.parse(readFileSync(new URL(readdirSync(advisoriesDir)[0]!, advisoriesDir), 'utf8')) as Record<string, any>;

/** One entry of about `entryBytes`: the advisory under a new id, its first affected range's versions padded. */
function largeRecord(n: number): Buffer {
  const record = structuredClone(advisory);
  record.id = `GHSA-bnch-${String(n).padStart(4, '0')}-sync`;
  record.aliases = [`CVE-2098-${10_000 + n}`];
  record.references = [];
  const base = Buffer.byteLength(JSON.stringify(record));
  const versions: string[] = [];
  for (let size = base, i = 0; size < entryBytes; i++) {
    const version = `${Math.floor(i / 10_000)}.${Math.floor(i / 100) % 100}.${i % 100}-build${n}`;
    versions.push(version);
    size += version.length + 3;
  }
  record.affected = [{ ...(record.affected?.[0] ?? { package: { ecosystem: 'PyPI', name: 'bench' } }), versions }];
  return Buffer.from(JSON.stringify(record));
}

const zip = new yazl.ZipFile();
for (let i = 0; i < entries; i++) zip.addBuffer(largeRecord(i), `GHSA-bnch-${i}.json`);
zip.end();
const zipBytes = await buffer(zip.outputStream);
const files = await startFileServer();
files.set('/PyPI/all.zip', zipBytes);

// The reader runs in a process of its own: in this one, a blocked event loop would also delay the
// reader's own sends and hide the stall it causes.
const readerScript = `
const latencies = [];
let stop = false;
process.stdin.on('data', () => (stop = true));
let errors = 0;
while (!stop) {
  const started = performance.now();
  try {
    const res = await fetch(process.argv[1] + '/api/v1/issues?limit=20', { headers: { 'cache-control': 'no-cache' } });
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
  } catch {
    errors++;
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.stdout.write(JSON.stringify({ latencies, errors }));
`;

async function measure() {
  const bench = database === 'postgres' ? await scratchPostgres() : await scratchPGlite();
  const config = testConfig({ rateLimitPerMinute: 0 });
  const { pubsub } = createIssuePubSub(config);
  const log = createLogger('error');
  const app = createApp({ config, db: bench.db, log, pubsub });
  const server = createHttpServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Reads (uncached) from another process until `done` settles; the latency of each, sorted, and the failures. */
  async function read(done: Promise<unknown>): Promise<{ latencies: number[]; errors: number }> {
    const reader = spawn(process.execPath, ['--input-type=module', '-e', readerScript, base], { stdio: ['pipe', 'pipe', 'inherit'] });
    const output = buffer(reader.stdout!);
    await done.catch(() => undefined);
    reader.stdin!.end('stop');
    const { latencies, errors } = JSON.parse((await output).toString()) as { latencies: number[]; errors: number };
    return { latencies: latencies.sort((a, b) => a - b), errors };
  }

  // The relevance model trains on its first use (a second or two, once per process, which a
  // server's first sync pays at start-up): trained before, so the figure is the large entries'.
  defaultClassifier();
  const quiet = await read(new Promise((resolve) => setTimeout(resolve, 5000)));
  const started = performance.now();
  const syncing = syncSource(
    { prisma: bench.db.prisma, pubsub, log, db: bench.db },
    { name: 'bench-large', kind: 'osv-zip', location: files.url('/PyPI/all.zip'), intervalMinutes: 60 },
    { allowPrivate: true, ca: files.ca, relay: false },
  );
  const during = await read(syncing);
  const outcome = await syncing;
  const result = {
    syncSeconds: Math.round((performance.now() - started) / 100) / 10,
    sync: `${outcome.status}: ${JSON.stringify(outcome.counts)}`,
    readerWithoutSync: summary(quiet),
    readerDuringSync: summary(during),
  };
  server.closeAllConnections();
  server.close();
  await bench.close();
  return result;
}

const summary = ({ latencies, errors }: { latencies: number[]; errors: number }) => ({
  requests: latencies.length,
  errors,
  p50Ms: Math.round(percentile(latencies, 50)),
  p99Ms: Math.round(percentile(latencies, 99)),
  maxMs: Math.round(latencies.at(-1) ?? Number.NaN),
});

const result = await measure();
console.log(
  JSON.stringify(
    {
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: new URL('..', import.meta.url), encoding: 'utf8' }).trim(),
      database,
      entries,
      entryMb: Math.round((entryBytes / 1024 / 1024) * 100) / 100,
      zipMb: Math.round((zipBytes.length / 1024 / 1024) * 10) / 10,
      loadAverage: Number(loadavg()[0]!.toFixed(1)),
      ...result,
    },
    null,
    2,
  ),
);
await files.close();
process.exit(0);
