// Ingest throughput, PGlite and PostgreSQL side by side in one run:
//   npx tsx bench/ingest.ts [--synthetic 1000] [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
// Runs the CLI's pipeline (src/ingest/ingest.ts with the CLI's chunk size, no relay) on a fresh
// database of each kind: the bundled sample data, then a synthetic load of advisories cloned under
// new ids, then the same synthetic load again (everything unchanged). Also runs the real CLI once
// per database for the end-to-end figure it prints. Results replace the "Ingest" section of
// bench/components.md.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrator.js';
import { readSampleRecords } from '../src/server/seed.js';
import { ingest } from '../src/ingest/ingest.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { emptyPostgres } from './scratch-databases.js';
import { writeReadmeSection } from './readme.js';
import { cloneAdvisory } from './synthetic.js';

const { values } = parseArgs({
  options: {
    synthetic: { type: 'string', default: '1000' },
    'database-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  },
});
const syntheticCount = Number(values.synthetic);
const adminUrl = values['database-url']!;

/** Advisories cloned under fresh GHSA/CVE ids, so each one is a new issue. */
async function syntheticRecords(n: number): Promise<unknown[]> {
  const base = (await readSampleRecords()).filter((r) => (r as { id?: string }).id?.startsWith('GHSA-')) as Record<string, unknown>[];
  return Array.from({ length: n }, (_, i) => cloneAdvisory(base[i % base.length]!, i));
}

interface Pass {
  label: string;
  records: number;
  seconds: number;
}

async function runOn(db: Database, sample: unknown[], synthetic: unknown[]): Promise<Pass[]> {
  const { pubsub, close } = createIssuePubSub();
  const deps = { prisma: db.prisma, pubsub, log: createLogger('silent'), db };
  const passes: Pass[] = [];
  const timed = async (label: string, records: unknown[], expect: 'created' | 'unchanged') => {
    const start = performance.now();
    const result = await ingest(deps, records, { chunkSize: 200, relay: false });
    const seconds = (performance.now() - start) / 1000;
    if (result[expect] !== records.length)
      throw new Error(`${label}: expected ${records.length} ${expect}, got ${JSON.stringify({ ...result, ids: undefined })}`);
    passes.push({ label, records: records.length, seconds });
  };
  try {
    await timed('sample data, new', sample, 'created');
    await timed(`${synthetic.length} synthetic advisories, new`, synthetic, 'created');
    await timed(`${synthetic.length} synthetic advisories, unchanged`, synthetic, 'unchanged');
  } finally {
    await close();
  }
  return passes;
}

function cliSeconds(env: Record<string, string>): { seconds: number; line: string } {
  const start = performance.now();
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'ingest', 'data/advisories', 'data/items'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'error', REGISTRY_LOOKUP: 'false', SOURCES: '[]' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return {
    seconds: (performance.now() - start) / 1000,
    line:
      out
        .trim()
        .split('\n')
        .find((l) => l.startsWith('received')) ?? '',
  };
}

const sample = await readSampleRecords();
const synthetic = await syntheticRecords(syntheticCount);

const pgliteDir = await mkdtemp(join(tmpdir(), 'secwire-bench-'));
const pglite = await openDatabase({ kind: 'pglite', dataDir: pgliteDir });
await migrate(pglite.adapterFactory);
const pglitePasses = await runOn(pglite, sample, synthetic);
await pglite.close();

const pgDb = await emptyPostgres(adminUrl);
const postgres = await openDatabase({ kind: 'postgres', url: pgDb.url });
await migrate(postgres.adapterFactory);
const pgPasses = await runOn(postgres, sample, synthetic);
await postgres.close();
await pgDb.drop();

// The real CLI, end to end (process start, migrations, reading files, progress bar), on fresh databases.
const cliDir = await mkdtemp(join(tmpdir(), 'secwire-bench-cli-'));
const cliPglite = cliSeconds({ DATA_DIR: cliDir, DATABASE_URL: '' });
const cliPg = await emptyPostgres(adminUrl);
const cliPostgres = cliSeconds({ DATABASE_URL: cliPg.url });
await cliPg.drop();
await rm(pgliteDir, { recursive: true, force: true });
await rm(cliDir, { recursive: true, force: true });

const rate = (p: Pass) => p.records / p.seconds;
const rows = pglitePasses.map((p, i) => {
  const q = pgPasses[i]!;
  return `| ${p.label} | ${p.records} | ${rate(p).toFixed(0)} | ${rate(q).toFixed(0)} | ${(rate(q) / rate(p)).toFixed(2)} |`;
});
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- ingest:begin -->
## Ingest (\`npx tsx bench/ingest.ts --synthetic ${syntheticCount}\`)

Measured ${when} UTC. The CLI's pipeline (parse, classify, upsert) on a fresh database, records per second.

| pass | records | PGlite rec/s | PostgreSQL rec/s | PostgreSQL / PGlite |
|---|---|---|---|---|
${rows.join('\n')}
<!-- ingest:end -->`;

await writeReadmeSection('ingest', section);
console.log(section);
console.log(`\nThe real CLI end to end (\`npm run cli -- ingest data/advisories data/items\`, ${sample.length} records, fresh
database; wall time includes process start and migrations, the rate is the CLI's own figure):

| database | wall time | CLI summary |
|---|---|---|
| PGlite | ${cliPglite.seconds.toFixed(1)} s | ${cliPglite.line} |
| PostgreSQL | ${cliPostgres.seconds.toFixed(1)} s | ${cliPostgres.line} |`);
