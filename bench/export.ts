// CSV export at scale: GET /api/issues/export through the real app in-process, body read to the
// end, with the process's RSS sampled while it streams. Each export runs in a child process of its
// own that holds only the app (PostgreSQL: the parent creates, migrates and fills the database
// and the child connects to it), so neither the data generation nor the other database shows in
// its memory. The baseline is plain SQL: the same keyset pages (same columns, same page size) read
// on the driver directly, no CSV written.
//
//   npx tsx bench/export.ts [postgresRows=1000000] [pgliteRows=100000]   (0 skips one)
// PGlite keeps its whole database inside the process (WebAssembly memory), so its RSS is mostly
// the database; at a million rows the database alone would dwarf the export, so PGlite is measured
// at a size where it fits, and what matters there is the growth during the export.
// PostgreSQL: BENCH_DATABASE_URL, a scratch database created and dropped.
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { csvColumns } from '../src/csv-export/route.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { serverNodeFlags } from '../test/helpers/npm-script.js';
import { generateIssues } from './issue-rows.js';
import { connectPostgres, scratchPGlite, scratchPostgres, type BenchDatabase } from './scratch-databases.js';

interface Figures {
  kind: string;
  rows: number;
  served: number;
  baselineSeconds: number;
  baselinePeakMb: number;
  exportSeconds: number;
  exportPeakMb: number;
  rssBeforeMb: number;
  bytes: number;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

/** Samples RSS every 20 ms while `run` is going; returns its result, the seconds taken and the peak. */
async function watch<T>(run: () => Promise<T>): Promise<{ result: T; seconds: number; peakMb: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const t0 = performance.now();
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, seconds: (performance.now() - t0) / 1000, peakMb: mb(peak) };
  } finally {
    clearInterval(timer);
  }
}

async function generate(bench: BenchDatabase, rows: number) {
  const t0 = performance.now();
  await generateIssues((q) => bench.sql(q), rows);
  console.error(`  ${bench.db.kind}: ${rows} issues generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Reads the whole export; counts bytes and records (the generated values hold no line breaks). */
async function readExport(app: ReturnType<typeof createApp>, query = '') {
  const res = await app.fetch(new Request(`http://localhost/api/issues/export${query}`));
  if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
  let bytes = 0;
  let records = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    for (let i = 1; i < chunk.length; i++) if (chunk[i] === 10 && chunk[i - 1] === 13) records++;
  }
  return { bytes, records: records - 1 };
}

async function child(kind: 'postgres' | 'pglite', arg: string): Promise<Figures> {
  const bench = kind === 'postgres' ? await connectPostgres(arg) : await scratchPGlite();
  try {
    if (kind === 'pglite') await generate(bench, Number(arg));
    const served = Number((await bench.sql<{ n: string }>('SELECT count(*)::text AS n FROM "Issue" WHERE relevant AND processed AND NOT withdrawn'))[0]!.n);
    const { pubsub, close } = createIssuePubSub();
    const app = createApp({ config: testConfig({ rateLimitPerMinute: 0 }), db: bench.db, log: createLogger('silent'), pubsub });
    // Warm-up: the first export loads what every later one shares (Prisma's query compiler, the schema).
    await readExport(app, '?since=2999-01-01');

    global.gc?.();
    const rssBefore = mb(process.memoryUsage.rss());
    const exported = await watch(() => readExport(app));

    const columns = csvColumns.map((c) => `"${c}"`).join(', ');
    const baseline = await watch(async () => {
      let count = 0;
      let after: { publishedAt: Date; id: string } | undefined;
      for (;;) {
        const page = await bench.sql<{ publishedAt: Date; id: string }>(
          `SELECT ${columns} FROM "Issue" WHERE relevant AND processed AND NOT withdrawn
             ${after ? 'AND ("publishedAt", id) < ($1, $2::uuid)' : ''}
           ORDER BY "publishedAt" DESC, id DESC LIMIT 1000`,
          after ? [after.publishedAt, after.id] : [],
        );
        count += page.length;
        if (page.length < 1000) return count;
        const last = page[page.length - 1]!;
        after = { publishedAt: last.publishedAt, id: last.id };
      }
    });
    if (baseline.result !== served) throw new Error(`baseline read ${baseline.result} rows, expected ${served}`);

    await close();
    if (exported.result.records !== served) throw new Error(`export wrote ${exported.result.records} rows, expected ${served}`);
    return {
      kind,
      rows: served,
      served,
      baselineSeconds: baseline.seconds,
      baselinePeakMb: baseline.peakMb,
      exportSeconds: exported.seconds,
      exportPeakMb: exported.peakMb,
      rssBeforeMb: rssBefore,
      bytes: exported.result.bytes,
    };
  } finally {
    await bench.close();
  }
}

/** The V8 flags `npm start` runs the service with on this database, or BENCH_CHILD_FLAGS (e.g. --max-old-space-size=64). */
const childFlags = (kind: 'postgres' | 'pglite') =>
  process.env.BENCH_CHILD_FLAGS?.split(' ').filter(Boolean) ?? serverNodeFlags(kind).filter((flag) => flag !== '--expose-gc');

async function parent() {
  const loadStart = loadavg()[0]!.toFixed(1);
  const postgresRows = Number(process.argv[2] ?? 1_000_000);
  const pgliteRows = Number(process.argv[3] ?? 100_000);
  const run = async (kind: 'postgres' | 'pglite', arg: string): Promise<Figures> => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [...childFlags(kind), '--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', kind, arg],
      { maxBuffer: 16 * 1024 * 1024, timeout: 3 * 3600_000 },
    );
    process.stderr.write(stderr);
    return JSON.parse(stdout.trim().split('\n').pop()!) as Figures;
  };
  const results: Figures[] = [];
  if (postgresRows > 0) {
    const postgres = await scratchPostgres();
    try {
      await generate(postgres, postgresRows);
      results.push(await run('postgres', postgres.url!));
    } finally {
      await postgres.close();
    }
  }
  if (pgliteRows > 0) results.push(await run('pglite', String(pgliteRows)));

  const f1 = (v: number) => v.toFixed(1);
  const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en');
  console.log(`Machine: ${cpus().length} CPUs, ${cpus()[0]?.model ?? ''}; load average ${loadStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.\n`);
  console.log(
    `GET /api/issues/export, body read to the end in-process (child flags: ${childFlags('postgres').join(' ') || 'none'} on PostgreSQL, ${childFlags('pglite').join(' ') || 'none'} on PGlite); RSS of the whole process, sampled every 20 ms.`,
  );
  console.log('Baseline: the same keyset pages read with plain SQL on the driver, no CSV.\n');
  console.log(
    '| database | rows exported | CSV size | export rows/s | baseline rows/s | export time / baseline | RSS before the export | peak RSS during it | growth |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.kind === 'postgres' ? 'PostgreSQL' : 'PGlite (database in the process)'} | ${r.served.toLocaleString('en')} | ${f1(r.bytes / 1024 / 1024)} MB | ${rate(r.served, r.exportSeconds)} | ${rate(r.served, r.baselineSeconds)} | ${(r.exportSeconds / r.baselineSeconds).toFixed(2)} | ${f1(r.rssBeforeMb)} MB | ${f1(r.exportPeakMb)} MB | ${f1(r.exportPeakMb - r.rssBeforeMb)} MB |`,
    );
  }
  const pgResult = results.find((r) => r.kind === 'postgres');
  const liteResult = results.find((r) => r.kind === 'pglite');
  if (pgResult && liteResult) {
    console.log(
      `\nPGlite / PostgreSQL export throughput (rows/s): ${(liteResult.served / liteResult.exportSeconds / (pgResult.served / pgResult.exportSeconds)).toFixed(2)}`,
    );
  }
}

if (process.argv[2] === '--child') {
  const figures = await child(process.argv[3] as 'postgres' | 'pglite', process.argv[4]!);
  console.log(JSON.stringify(figures));
} else {
  await parent();
}
