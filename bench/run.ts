// `npm run bench -- [name] [args...]`: runs one benchmark of this folder (all when no name is given).
// Each benchmark is a script that prints a Markdown table; results are kept in bench/README.md and
// bench/components.md.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benchmarks: Record<string, string> = {
  'list-route': 'GET /api/v1/issues latency per filter, PostgreSQL and PGlite side by side',
  ingest: 'ingest records per second (sample data and synthetic advisories), PostgreSQL and PGlite',
  'rate-limit': 'rate limiter overhead per request (off, memory, Redis), PostgreSQL and PGlite',
  scan: 'POST /api/v1/scan latency, 1,000-package stacks against 100k issues, PostgreSQL and PGlite',
  'scan-versions': 'POST /api/v1/scan with 1,000 versions of one package against 5,000 issues of it (target < 2 s)',
  export: 'CSV export rows per second and peak RSS, 1M issues on PostgreSQL, 100k on PGlite',
  'webhooks-fanout': 'seconds from ingesting a batch to the last of 1,000 webhooks receiving it, PostgreSQL and PGlite',
  sources: 'osv-zip sync of 250,000 generated OSV records: records/s, peak RSS, an unchanged second sync, PostgreSQL and PGlite',
  reclassify: 'reclassify 10,000 stored issues with the CLI progress bar: time, and each newly relevant issue announced once',
  throughput:
    'req/s, p50/p99, CPU per request and RSS under autocannon -c 50: the real server, the stack floor (Yoga + SOFA plugin, SDL schema) and a raw node:http + pg server, 100k issues (PostgreSQL; --db pglite)',
  startup: 'seconds to the first answer, peak and idle RSS: npm start (compiled) against tsx, PGlite and PostgreSQL',
  'stack-watch': "watched stacks: 10,000 stacks of 50 components, a batch of 100 new issues: commit to last delivery enqueued, CPU, a healthy receiver's p99",
  'first-sync': 'first sync of the default sources from local copies of realistic size: records/s, peak RSS, time to the first served issue',
  'webhooks-crash': 'SIGKILL the server while delivering 1,000 issues to 20 webhooks, restart: lost and duplicate pairs',
  fuzz: 'the fuzz test at 20,000+ generated requests (issue 27 shapes included): 0 5xx, no leaks, PGlite and PostgreSQL + Redis (--db pglite|postgres|both)',
  'export-loop': 'one client looping the exports, 50 slow readers of them, another client reading: its p99, RSS growth (--db pglite|postgres)',
  'hanging-postgres':
    '/health, /ready and ordinary reads (one at a time and 50 at once) while PostgreSQL hangs (a TCP proxy that stops forwarding), and /ready once it forwards again',
  'stack-loop': "one key reading its 1,000-component stack's VEX as fast as its budget allows: others' p50/p99 beside it and alone, RSS (--db pglite|postgres)",
  soak: 'minutes of an open-loop mixed load (reads, GraphQL, scans, exports, webhooks, a trickle of ingests) at --rate req/s: per minute served rate, p50/p99, 5xx, RSS; deliveries each once (--db postgres|pglite)',
  'rest-layers': 'CPU per request of each layer under a REST read, no database: node:http, Yoga, sofa-api router inside Yoga (issue 29)',
  'sync-readers': 'a reader during a sync of an OSV zip of large entries ([entries] [MB] [pglite|postgres]): p50/p99 against no sync, of this checkout',
};

const [name, ...args] = process.argv.slice(2);
const usage = [
  'usage: npm run bench -- [name] [args...]   (all benchmarks when no name is given; figures go to bench/README.md)',
  '',
  ...Object.entries(benchmarks).map(([n, what]) => `  ${n.padEnd(16)} ${what}`),
].join('\n');
if (name === '--help' || name === '-h' || name === 'help') {
  console.log(usage);
  process.exit(0);
}
if (name && !(name in benchmarks)) {
  console.error(`unknown benchmark ${name}\n\n${usage}`);
  process.exit(1);
}
for (const bench of name ? [name] : Object.keys(benchmarks)) {
  console.log(`== ${bench}: ${benchmarks[bench]}`);
  const script = fileURLToPath(new URL(`./${bench}.ts`, import.meta.url));
  // The default sources stay off (no bench leaves the machine) unless the caller names its own.
  execFileSync(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'inherit', env: { SOURCES: '[]', ...process.env } });
}
