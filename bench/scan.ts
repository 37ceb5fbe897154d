// Stack scan latency: POST /api/v1/scan with a 1,000-package stack against 100,000 issues, on
// PostgreSQL and PGlite side by side, through the real app in-process (no network). The baseline
// is plain SQL: the statement the scan runs (candidates through the GIN index, then their rows),
// on the driver directly, nothing else; "route / SQL" is what Prisma, the version checks, GraphQL,
// SOFA and JSON add.
//
//   npx tsx bench/scan.ts [issues=100000] [iterations=30]
// PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres); a scratch
// database is created and dropped. Prints Markdown for bench/components.md ("Stack scan").
import { cpus, loadavg } from 'node:os';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { parseStack } from '../src/scan/stack.js';
import { scanStack } from '../src/scan/scan.js';
import { generateIssues, packagesOf, scanCandidatesSql } from './issue-rows.js';
import { median, scratchPGlite, scratchPostgres, time, type BenchDatabase } from './scratch-databases.js';

const issues = Number(process.argv[2] ?? 100_000);
const iterations = Number(process.argv[3] ?? 30);

/** 1,000 package entries; `hits` of them are names that issues spread over the table affect. */
function stack(hits: number, version: string | undefined): string[] {
  const at = version ? `@${version}` : '';
  return Array.from({ length: 1000 }, (_, i) => (i < hits ? `${packagesOf(1 + Math.floor((i * issues) / hits))[i % 2]}${at}` : `unaffected-package-${i}${at}`));
}

const stacks: [string, string[]][] = [
  ['1,000 packages with versions, 100 of them with issues', stack(100, '1.5.0')],
  ['1,000 packages with versions, all with issues', stack(1000, '1.5.0')],
  ['1,000 package names, no versions, all with issues', stack(1000, undefined)],
];

// The statement scanStack runs (src/scan/scan.ts), as plain SQL on the driver.
const candidatesSql = scanCandidatesSql();

const plainSql = (bench: BenchDatabase, keys: string[]) => bench.sql(candidatesSql, [keys, []]);

interface Result {
  sql: number;
  module: number;
  route: number;
  candidates: number;
  matches: number;
}

async function measure(bench: BenchDatabase): Promise<Map<string, Result>> {
  const t0 = performance.now();
  await generateIssues((q) => bench.sql(q), issues);
  console.error(`  ${bench.db.kind}: ${issues} issues generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { pubsub, close } = createIssuePubSub();
  const app = createApp({ config: testConfig({ rateLimitPerMinute: 0 }), db: bench.db, log: createLogger('silent'), pubsub });
  // Session-wide on the bench's own connection; scanStack turns JIT off per statement (see there).
  if (bench.db.kind === 'postgres') await bench.sql('SET jit = off');
  const results = new Map<string, Result>();
  for (const [name, packages] of stacks) {
    const parsed = parseStack(packages, []);
    const keys = [...new Set(parsed.packages.flatMap((p) => p.keys))];
    const post = async () => {
      const res = await app.fetch(
        new Request('http://localhost/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ packages }) }),
      );
      if (res.status !== 200) throw new Error(`scan answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { meta: { total: number } };
    };
    const candidates = (await plainSql(bench, keys)).length;
    const matches = (await post()).meta.total;
    results.set(name, {
      sql: median(await time(iterations, () => plainSql(bench, keys))),
      module: median(await time(iterations, () => scanStack(bench.db.read, parsed))),
      route: median(await time(iterations, post)),
      candidates,
      matches,
    });
  }
  if (bench.db.kind === 'postgres') {
    const keys = [...new Set(parseStack(stacks[0]![1], []).packages.flatMap((p) => p.keys))];
    const plan = await bench.sql<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${candidatesSql}`, [keys, []]);
    console.error(`  PostgreSQL plan (first stack):\n${plan.map((r) => `    ${r['QUERY PLAN'].slice(0, 160)}`).join('\n')}`);
  }
  await close();
  return results;
}

async function main() {
  const loadStart = loadavg()[0]!.toFixed(1);
  const pglite = await scratchPGlite();
  const onPGlite = await measure(pglite).finally(() => pglite.close());
  const postgres = await scratchPostgres();
  const onPostgres = await measure(postgres).finally(() => postgres.close());

  const ms = (v: number) => v.toFixed(1);
  console.log(`Machine: ${cpus().length} CPUs, ${cpus()[0]?.model ?? ''}; load average ${loadStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.\n`);
  console.log(`POST /api/v1/scan against ${issues.toLocaleString('en')} issues (90% served), median of ${iterations} in-process requests, milliseconds.`);
  console.log('"SQL" is the candidate statement alone on the driver; "module" is scanStack() without HTTP/GraphQL; "route" is the whole request.\n');
  console.log(
    '| stack | candidates | matches | PostgreSQL SQL | PostgreSQL module | PostgreSQL route | route / SQL | PGlite SQL | PGlite route | route / SQL | PGlite / PostgreSQL (route) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name] of stacks) {
    const p = onPostgres.get(name)!;
    const l = onPGlite.get(name)!;
    if (p.matches !== l.matches) throw new Error(`${name}: PostgreSQL found ${p.matches} matches, PGlite ${l.matches}`);
    console.log(
      `| ${name} | ${p.candidates} | ${p.matches} | ${ms(p.sql)} | ${ms(p.module)} | ${ms(p.route)} | ${(p.route / p.sql).toFixed(1)} | ${ms(l.sql)} | ${ms(l.route)} | ${(l.route / l.sql).toFixed(1)} | ${(l.route / p.route).toFixed(2)} |`,
    );
  }
}

await main();
