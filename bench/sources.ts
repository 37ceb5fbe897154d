// Sync of an OSV ecosystem export (osv-zip), PGlite and PostgreSQL side by side:
//   npx tsx bench/sources.ts [--records 250000] [--ai-share 0.1] [--skip-pglite]
// Builds a zip of OSV records cloned under new ids from real advisories at their real sizes, streamed
// entry by entry: --ai-share of them from the sample's AI/ML advisories (data/advisories), the rest
// from the labelled general-software ones (data/relevance/negative), as in a real ecosystem export
// where most records are not AI-related. Each sync is `npm run cli -- sync` as an operator runs it
// (compiled dist/server/cli.js with the script's node flags; bench/peak-rss.mjs preloaded for its peak
// RSS): the first sync on a fresh database, then a second one over the same file read again
// (validators forgotten, every entry checked by fingerprint). --zip keeps the built zip at a path
// and reuses it when it exists (building 250,000 records takes minutes).
// Results replace the "Sources" section of bench/components.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launcher } from '../test/helpers/npm-script.js';
import { buildOsvZip } from './osv-export.js';
import { writeReadmeSection } from './readme.js';
import { connectPostgres, scratchPGlite, scratchPostgres, type BenchDatabase } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '250000' },
    'ai-share': { type: 'string', default: '0.1' },
    'skip-pglite': { type: 'boolean', default: false },
    'skip-postgres': { type: 'boolean', default: false },
    /** Keep the generated zip here, or reuse it when it exists (profiling runs). */
    zip: { type: 'string' },
  },
});
const total = Number(values.records);
const aiShare = Number(values['ai-share']);

interface SyncRun {
  status: string;
  seconds: number;
  counts: Record<string, number>;
  served: number;
  newEvents: number;
  modifiedAtMoved: boolean;
  peakRssMb: number;
}

const root = new URL('../', import.meta.url);

/** The database's marks around a sync: what a sync that publishes nothing leaves as it was. */
async function marks(sql: BenchDatabase['sql']) {
  const [row] = await sql<{ events: number; latest: string | null; served: number }>(
    `SELECT (SELECT count(*)::int FROM "IssueEvent") AS events, (SELECT max("modifiedAt")::text FROM "Issue") AS latest,
      (SELECT count(*)::int FROM "Issue" WHERE relevant) AS served`,
  );
  return row!;
}

/**
 * One `npm run cli -- sync bench` (without npm's own process), with a preload that reports its
 * peak RSS. `open` gives the bench its own connection for the marks: PGlite is opened only between
 * syncs (one process at a time). `freshRead` forgets the file's validators first, so an unchanged
 * file is read again and every record is checked (a re-run's worst case; with them it is one stat).
 */
async function runSync(open: () => Promise<BenchDatabase>, zip: string, env: Record<string, string>, freshRead: boolean): Promise<SyncRun> {
  let db = await open();
  if (freshRead) await db.sql(`UPDATE "SourceState" SET cursor = '{}' WHERE name = 'bench'`);
  const before = await marks(db.sql);
  await db.close();
  const sources = JSON.stringify([{ name: 'bench', kind: 'osv-zip', location: zip }]);
  // `npm run cli -- sync bench` as bin/secwire runs it, with the peak-RSS preload.
  const run = spawnSync(launcher, ['cli', 'sync', 'bench'], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      REGISTRY_LOOKUP: 'false',
      ...env,
      SOURCES: sources,
      NODE_OPTIONS: `--import=${new URL('peak-rss.mjs', import.meta.url).href}`,
    },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = /^bench \(osv-zip\): (\w+) in ([\d.]+) s: received (\d+), created (\d+), updated (\d+), unchanged (\d+), rejected (\d+), skipped (\d+)$/m.exec(
    run.stdout,
  );
  const peak = /^peak-rss-mb (\d+)$/m.exec(run.stderr);
  if (run.status !== 0 || !line || !peak) throw new Error(`npm run cli -- sync failed (${run.status}): ${run.stdout}\n${run.stderr}`);
  db = await open();
  const after = await marks(db.sql);
  await db.close();
  const [received, created, updated, unchanged, rejected, skipped] = line.slice(3).map(Number);
  return {
    status: line[1]!,
    seconds: Number(line[2]),
    counts: { received: received!, created: created!, updated: updated!, unchanged: unchanged!, rejected: rejected!, skipped: skipped! },
    served: after.served,
    newEvents: after.events - before.events,
    modifiedAtMoved: after.latest !== before.latest,
    peakRssMb: Number(peak[1]),
  };
}

const dir = await mkdtemp(join(tmpdir(), 'secwire-bench-sources-'));
const zip = values.zip ?? join(dir, 'all.zip');
try {
  const started = performance.now();
  if (!values.zip || !existsSync(zip)) await buildOsvZip(zip, { records: total, aiShare });
  const zipMb = (await stat(zip)).size / 1024 / 1024;
  const buildSeconds = (performance.now() - started) / 1000;
  console.log(`zip of ${total} records (${zipMb.toFixed(0)} MB) ready in ${buildSeconds.toFixed(0)} s`);

  // dist/ as `npm run cli` runs it (precli builds it when stale; here always, like prestart).
  execFileSync(process.execPath, [new URL('scripts/build.mjs', root).pathname], { stdio: 'inherit' });
  const rows: string[] = [];
  const measure = async (label: string, open: () => Promise<BenchDatabase>, env: Record<string, string>) => {
    const first = await runSync(open, zip, env, false);
    console.log(label, 'first', JSON.stringify(first), `load ${loadavg()[0]!.toFixed(1)}`);
    const second = await runSync(open, zip, env, true);
    console.log(label, 'second', JSON.stringify(second), `load ${loadavg()[0]!.toFixed(1)}`);
    const rate = Math.round(first.counts.received! / first.seconds);
    rows.push(
      `| ${label} | ${first.counts.received} (${first.served} served) | ${first.seconds.toFixed(1)} | **${rate}** | **${first.peakRssMb}** | ` +
        `${second.seconds.toFixed(1)} (**${((second.seconds / first.seconds) * 100).toFixed(1)}%**) | ${second.counts.skipped} | ` +
        `${second.newEvents} / ${second.modifiedAtMoved ? 'moved' : 'unchanged'} | ${second.peakRssMb} |`,
    );
  };
  if (!values['skip-pglite']) {
    const dataDir = join(dir, 'pglite');
    await measure('PGlite (on disk)', () => scratchPGlite(dataDir), { DATA_DIR: dataDir, DATABASE_URL: '' });
  }
  if (!values['skip-postgres']) {
    // Migrated here, as a deployed database is: the sync process then never starts the schema
    // engine, whose Wasm instance would otherwise stay resident beside the sync (about 25 MB).
    const pg = await scratchPostgres();
    try {
      await measure('PostgreSQL', () => connectPostgres(pg.url!), { DATABASE_URL: pg.url! });
    } finally {
      await pg.close();
    }
  }

  const section = [
    '<!-- sources:begin -->',
    `## Sources: osv-zip sync (\`npx tsx bench/sources.ts --records ${total}\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. A zip of ${total} OSV records (${zipMb.toFixed(0)} MB) synced by \`npm run cli -- sync\` into a`,
    'fresh database, then again with its validators forgotten (every entry checked against its stored fingerprint).',
    '',
    '| database | records (served) | first sync s | records/s | peak RSS MB | second sync s (of first) | skipped | new events / modifiedAt | second peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '<!-- sources:end -->',
  ].join('\n');
  // A profiling run that measured nothing (--skip-pglite --skip-postgres) leaves the README alone.
  if (rows.length) await writeReadmeSection('sources', section);
  console.log(section);
} finally {
  await rm(dir, { recursive: true, force: true });
}
