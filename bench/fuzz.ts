// The fuzz test (test/edge/fuzz.test.ts) at bench scale: at least 20,000 generated requests over every
// surface, the shapes of issue 27 included (forged cursors and TAXII tokens, deep SBOMs, lone
// surrogates, HEAD on streaming routes), with its invariants: never a 5xx, never a leak, the
// envelope for every error. CI runs the same file at about 12,000.
//
//   npx tsx bench/fuzz.ts [requests=20000] [--db pglite|postgres|both]
// --db postgres runs it on a scratch PostgreSQL database with the new-issue topic on Redis
// (TEST_DATABASE_URL and TEST_REDIS_URL, defaulting to the local servers); both (the default)
// runs PGlite, then PostgreSQL + Redis. Results replace the "Fuzzing" section of bench/components.md.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { writeReadmeSection } from './readme.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { db: { type: 'string', default: 'both' } } });
const requests = Number(positionals[0] ?? 20_000);
type Db = 'pglite' | 'postgres';
const databases = (values.db === 'both' ? ['pglite', 'postgres'] : [values.db]) as Db[];
if (!databases.every((db) => db === 'pglite' || db === 'postgres')) throw new Error('--db: pglite, postgres or both');

const label = { pglite: 'PGlite', postgres: 'PostgreSQL + Redis' };
const servers = {
  TEST_DATABASE_URL: process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
  TEST_REDIS_URL: process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
};

interface Run {
  database: Db;
  load: string;
  summary: string;
  passed: boolean;
  tests: string;
  /** requests and ms each, by surface */
  surfaces: Map<string, { count: number; each: number }>;
}

function fuzz(database: Run['database']): Run {
  const load = loadavg()[0]!.toFixed(1);
  const env = { ...process.env, FUZZ_REQUESTS: String(requests), NO_COLOR: '1', FORCE_COLOR: '0' };
  if (database === 'postgres') Object.assign(env, servers);
  else Object.assign(env, { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' });
  const run = spawnSync('npx', ['vitest', 'run', 'test/edge/fuzz.test.ts'], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${run.stdout}\n${run.stderr}`;
  const summary = /fuzz: (\d+) generated requests in ([\d.]+) s \((\d+)\/s\): (.*)/.exec(output);
  if (!summary) {
    console.error(output.slice(-4000));
    process.exit(1);
  }
  const [, sent, seconds, rate, breakdown] = summary;
  const passed = run.status === 0;
  if (!passed) console.error(output.slice(-4000));
  const surfaces = new Map<string, { count: number; each: number }>();
  for (const part of breakdown!.split(/, (?=[^,]+ \d+ \()/)) {
    const [, surface, count, each] = /^(.*) (\d+) \(([\d.]+) ms each\)$/.exec(part) ?? [];
    if (surface) surfaces.set(surface, { count: Number(count), each: Number(each) });
  }
  return {
    database,
    load,
    summary: `${sent} generated requests in ${seconds} s (${rate}/s)`,
    passed,
    tests: /Tests\s+(.*)\(\d+\)/.exec(output)?.[1]?.trim() ?? '?',
    surfaces,
  };
}

const runs = databases.map((database) => {
  const run = fuzz(database);
  console.log(label[database], run.summary, run.passed ? 'passed' : 'FAILED');
  return run;
});
const names = [...new Set(runs.flatMap((r) => [...r.surfaces.keys()]))];
// The REST operations share one row: their range is the figure, not each operation's.
const rest = names.filter((name) => name.startsWith('REST '));
const restCounts = [...new Set(rest.map((name) => runs[0]!.surfaces.get(name)?.count))];
const restRange = (run: Run) => {
  const each = rest.flatMap((name) => run.surfaces.get(name)?.each ?? []);
  return each.length ? `${Math.min(...each)} to ${Math.max(...each)}` : '';
};
const rows = [
  ...(rest.length ? [`| REST, ${rest.length} operations | ${restCounts.join(' or ')} each | ${runs.map(restRange).join(' | ')} |`] : []),
  ...names
    .filter((name) => !name.startsWith('REST '))
    .map((name) => `| ${name} | ${runs[0]!.surfaces.get(name)?.count ?? ''} | ${runs.map((r) => r.surfaces.get(name)?.each ?? '').join(' | ')} |`),
];
const section = `<!-- fuzz:begin -->
## Fuzzing (\`npx tsx bench/fuzz.ts ${requests} --db ${values.db}\`)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (2 shared cores). On PostgreSQL + Redis the rate limit
(every request one script call, never refused) and the new-issue topic go through Redis.

${runs
  .map(
    (r) =>
      `- ${label[r.database]} (load average ${r.load} at the start): **${r.summary}: ${r.passed ? '0 5xx, 0 leaks, every error the envelope' : 'FAILED (see the run)'}** (vitest: ${r.tests}).`,
  )
  .join('\n')}

| surface | requests | ${runs.map((r) => `${label[r.database]} ms each`).join(' | ')} |
|---|---|${runs.map(() => '---|').join('')}
${rows.join('\n')}
<!-- fuzz:end -->`;
console.log(section);
if (runs.every((r) => r.passed)) await writeReadmeSection('fuzz', section);
else process.exit(1);
