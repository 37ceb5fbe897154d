// Throughput under concurrency: the real server (src/server/main.ts in a child process, with the node
// flags `npm start` uses) against a minimal node:http + pg server (bench/raw-server.ts) that sends
// hand-written SQL and returns the same JSON, and against the stack floor (bench/floor-server.ts:
// graphql-yoga with Yoga's SOFA plugin, an SDL schema and the raw server's SQL), all on one scratch
// PostgreSQL database of realistic issues (--db pglite: each on its own copy of an embedded data
// directory). Every workload is first checked to give identical bodies on all, then driven with
// autocannon (-c 50), the servers interleaved round by round. Server CPU per request comes from
// /proc/<pid>/stat before and after each run, RSS from /proc/<pid>/status.
//
//   npm run bench -- throughput [--db postgres|pglite] [--issues 100000] [--seconds 5] [--rounds 2] [--only list,single]
//   npm run bench -- throughput --trace-gc ...: the real server runs with --trace-gc, and each of its
//     runs is followed (on stderr) by the collector's pauses during it, to read the latency tail by.
//   npm run bench -- throughput --cpu-prof <dir> [--only list] [--seconds 10]: instead of comparing,
//     drives the real server and then the floor under node --cpu-prof, one process per workload each,
//     and summarises where their CPU went while under load (bench/cpu-profile.ts): both on stderr,
//     the real server's into bench/README.md.
//   npm run bench -- throughput --secwire-dir <checkout> ...: another checkout's server (its bin/secwire,
//     installed and built there) runs as a third server in the same rounds, and a second table sets
//     its ratios to the raw server beside this checkout's: a before/after on one machine at one load.
//
// The issues: the bundled sample data ingested through the real pipeline, then cloned by COPY
// (PostgreSQL: FROM STDIN through pg-copy-streams; PGlite: FROM '/dev/blob', 5,000 rows a Blob) up to --issues, each clone with its own id, natural key, identifiers
// and publication day; one clone in 64 keeps its package names, the others get a suffix, so a
// package matches a realistic few hundred issues and not a 64th of the table.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import canonicalize from 'canonicalize';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { seedSampleData } from '../src/server/seed.js';
import { createLogger } from '../src/log.js';
import { compressors, type Encoding } from '../src/http/response-cache.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { launcher } from '../test/helpers/npm-script.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { cpuMs, startChildServer } from './child-server.js';
import { summariseProfile } from './cpu-profile.js';
import { withoutSecondaryIndexes } from './issue-rows.js';
import { smallGraphqlQuery } from './graphql-queries.js';
import { measuredCommit, writeReadmeSection } from './readme.js';
import { scratchPGlite, scratchPostgres, type BenchDatabase } from './scratch-databases.js';

// The real server runs as `npm start` runs it: compiled first.
execFileSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname], { stdio: 'inherit' });

const { values: options } = parseArgs({
  options: {
    issues: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    /** A directory: profile the real server (node --cpu-prof) per workload instead of comparing. */
    'cpu-prof': { type: 'string' },
    'no-readme': { type: 'boolean', default: false },
    'trace-gc': { type: 'boolean', default: false },
    db: { type: 'string', default: 'postgres' },
    'secwire-dir': { type: 'string' },
  },
});
/** The other checkout, and the commit it is at (its name in the tables). */
const other = options['secwire-dir']
  ? { dir: options['secwire-dir'], commit: execFileSync('git', ['-C', options['secwire-dir'], 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() }
  : undefined;
const issueCount = Number(options.issues);
const seconds = Number(options.seconds);
const rounds = Number(options.rounds);
const connections = Number(options.connections);

// ---------------------------------------------------------------------------------------------
// Data

/** One COPY text-format row split into its columns (tabs inside values are escaped as \t). */
type CopyRow = string[];

/** COPY in both directions, in text format: pg-copy-streams on PostgreSQL, /dev/blob on PGlite. */
interface Copy {
  out(query: string): Promise<string>;
  in(target: string, lines: Iterable<string>): Promise<void>;
}

function postgresCopy(client: pg.Client): Copy {
  return {
    async out(query) {
      let text = '';
      for await (const chunk of client.query(copyTo(`COPY (${query}) TO STDOUT`))) text += (chunk as Buffer).toString('utf8');
      return text;
    },
    in: (target, lines) => pipeline(Readable.from(lines), client.query(copyFrom(`COPY ${target} FROM STDIN`))),
  };
}

/** PGlite takes COPY input as one Blob per statement: 5,000 rows at a time keeps memory flat. */
function pgliteCopy(pglite: PGlite): Copy {
  return {
    out: async (query) => await (await pglite.query(`COPY (${query}) TO '/dev/blob'`)).blob!.text(),
    async in(target, lines) {
      let chunk: string[] = [];
      const flush = async () => {
        if (chunk.length) await pglite.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob(chunk) });
        chunk = [];
      };
      for (const line of lines) if (chunk.push(line) === 5000) await flush();
      await flush();
    },
  };
}

/** Every Issue row (served or not) in COPY text format; publishedAt as epoch milliseconds. */
async function templateRows(copy: Copy, columns: string[]): Promise<CopyRow[]> {
  const select = columns.map((c) => (c === 'publishedAt' ? `(extract(epoch from "publishedAt") * 1000)::bigint` : `"${c}"`)).join(', ');
  const text = await copy.out(`SELECT ${select} FROM "Issue" ORDER BY "publishedAt", id`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

const CLONES_KEEPING_NAMES = 64;

/** Clone `i` of its template, as a COPY text line. */
function cloneLine(template: CopyRow, column: Map<string, number>, i: number, generation: number): string {
  const row = [...template];
  const set = (name: string, value: string) => (row[column.get(name)!] = value);
  set('id', `b0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
  set('naturalKey', `bench:${i}`);
  set('identifiers', `{bench:${i}}`);
  set('publishedAt', new Date(Number(template[column.get('publishedAt')!]) - generation * 86_400_000).toISOString());
  const suffix = generation % CLONES_KEEPING_NAMES;
  const names = template[column.get('packageNames')!]!;
  // Only plain names (no quoting needed in an array literal) are renamed; quoted ones stay as they are.
  if (suffix !== 0 && !names.includes('"'))
    set(
      'packageNames',
      names === '{}'
        ? names
        : `{${names
            .slice(1, -1)
            .split(',')
            .map((n) => `${n}-${suffix}`)
            .join(',')}}`,
    );
  return `${row.join('\t')}\n`;
}

/** Seeds the sample data through ingestion, then COPYs clones of its issues up to `total`. */
async function seed(bench: BenchDatabase, total: number): Promise<void> {
  const { pubsub, close } = createIssuePubSub();
  await seedSampleData({ prisma: bench.db.prisma, pubsub, log: createLogger('silent'), db: bench.db });
  await close();
  const client = bench.url ? new pg.Client({ connectionString: bench.url }) : undefined;
  await client?.connect();
  try {
    const copy = client ? postgresCopy(client) : pgliteCopy(bench.db.pglite!);
    const columns = (
      await bench.sql<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'Issue' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      )
    ).map((r) => r.column_name);
    const column = new Map(columns.map((c, i) => [c, i]));
    const templates = await templateRows(copy, columns);
    const clones = total - templates.length;
    function* lines() {
      for (let i = 0; i < clones; i++) yield cloneLine(templates[i % templates.length]!, column, i, 1 + Math.floor(i / templates.length));
    }
    await withoutSecondaryIndexes(
      (q) => bench.sql(q),
      () => copy.in(`"Issue" (${columns.map((c) => `"${c}"`).join(', ')})`, lines()),
    );
    // The visibility map, so counts can be index-only scans as on a long-running database.
    await bench.sql('VACUUM "Issue"');
  } finally {
    await client?.end();
  }
}

/**
 * The database both servers read, and the environment that points each at it. PostgreSQL: one
 * scratch database for both. PGlite serves one process, so each server gets its own copy of the
 * seeded data directory.
 */
interface Target {
  kind: 'postgres' | 'pglite';
  served: number;
  workloads: Workload[];
  env: { real: Record<string, string>; raw: Record<string, string>; floor: Record<string, string>; other: Record<string, string> };
  /** Statements still running in the database (PostgreSQL; PGlite runs inside the server process). */
  activeStatements(): Promise<number>;
  close(): Promise<void>;
}

async function prepare(kind: Target['kind']): Promise<Target> {
  const t0 = performance.now();
  const dir = kind === 'pglite' ? await mkdtemp(join(tmpdir(), 'secwire-throughput-')) : undefined;
  const bench = dir ? await scratchPGlite(join(dir, 'real')) : await scratchPostgres();
  try {
    await seed(bench, issueCount);
    const [{ served }] = (await bench.sql<{ served: number }>(
      `SELECT count(*) FILTER (WHERE relevant AND processed AND NOT withdrawn)::int AS served FROM "Issue"`,
    )) as [{ served: number }];
    console.error(`${kind}: seeded ${issueCount} issues (${served} served) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const list = await workloads(bench, served);
    // What the broad search costs the database alone (the count is the part no index answers).
    const explain = `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM "Issue" WHERE relevant AND processed AND NOT withdrawn AND "searchVector" @@ websearch_to_tsquery('english', 'injection')`;
    const printPlan = async () => console.error((await bench.sql<Record<string, string>>(explain)).map((r) => `  ${Object.values(r)[0]}`).join('\n'));
    await printPlan();
    if (!dir) {
      // And through the GIN index, for comparison (the planner prefers a sequential scan at this share of rows).
      await bench.sql('SET enable_seqscan = off');
      await printPlan();
      await bench.sql('RESET enable_seqscan');
    }
    if (!dir) {
      const activeStatements = async () =>
        (
          await bench.sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
          )
        )[0]!.n;
      return {
        kind,
        served,
        workloads: list,
        env: {
          real: { DATABASE_URL: bench.url! },
          raw: { DATABASE_URL: bench.url! },
          floor: { DATABASE_URL: bench.url! },
          other: { DATABASE_URL: bench.url! },
        },
        activeStatements,
        close: () => bench.close(),
      };
    }
    await bench.close();
    const env = (name: string) => ({ DATABASE_URL: '', DATA_DIR: join(dir, name) });
    // The server writes at start-up (yesterday's digest): once, before the copy, so both copies hold it.
    await (await startReal(env('real'))).stop();
    await cp(join(dir, 'real'), join(dir, 'raw'), { recursive: true });
    await cp(join(dir, 'real'), join(dir, 'floor'), { recursive: true });
    if (other) await cp(join(dir, 'real'), join(dir, 'other'), { recursive: true });
    return {
      kind,
      served,
      workloads: list,
      env: { real: env('real'), raw: env('raw'), floor: env('floor'), other: env('other') },
      activeStatements: async () => 0,
      close: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    await bench.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Servers

interface Server {
  name: string;
  base: string;
  pid: number;
  stop(): Promise<unknown>;
  /** What the process has written so far, a line each (the real server only). */
  output?: () => string[];
}

/** This checkout's server, or with `checkout` the other one's (--secwire-dir). */
async function startReal(env: Record<string, string>, extraFlags: string[] = [], checkout?: typeof other): Promise<Server> {
  const command = checkout ? join(checkout.dir, 'bin', 'secwire') : launcher;
  const server = await startServerProcess({ ...env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'info' }, extraFlags, command, checkout?.dir);
  const name = checkout ? `secwire ${checkout.commit}` : 'secwire';
  return { name, base: server.base, pid: server.child.pid!, stop: () => server.stop(), output: () => server.lines().map((l) => l.msg ?? '') };
}

/** The raw server (raw-server.ts) or the stack floor (floor-server.ts); `nodeFlags` before the script. */
async function startBaseline(name: 'raw' | 'floor', env: Record<string, string>, nodeFlags: string[] = []): Promise<Server> {
  const script = new URL(`./${name}-server.ts`, import.meta.url).pathname;
  const { child, base } = await startChildServer(name, script, [], { ...env, PORT: '0' }, nodeFlags);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { name, base, pid: child.pid!, stop: () => (child.kill('SIGTERM'), exited) };
}

/** Resident and peak resident memory in MB. */
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

// ---------------------------------------------------------------------------------------------
// Workloads

interface Workload {
  /** What --only names. */
  key: string;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Request headers beside the body's Content-Type. */
  headers?: Record<string, string>;
}

/** Asks secwire for a fresh answer (the response cache is skipped); the raw server ignores it. */
const uncached = { 'cache-control': 'no-cache' };

/** Every request's headers: the workload's, and the body's type. */
const requestHeaders = (workload: Workload) => ({ ...workload.headers, ...(workload.body ? { 'content-type': 'application/json' } : {}) });

async function workloads(bench: BenchDatabase, served: number): Promise<Workload[]> {
  const [single] = await bench.sql<{ id: string }>(
    `SELECT id::text FROM "Issue" WHERE relevant AND processed AND NOT withdrawn ORDER BY "publishedAt" DESC, id DESC OFFSET ${Math.floor(served / 2)} LIMIT 1`,
  );
  // The ten package names with the most served issues: what a real stack's heavy hitters look like.
  const scan10 = (
    await bench.sql<{ name: string }>(
      `SELECT name FROM "Issue", unnest("packageNames") AS name WHERE relevant AND processed AND NOT withdrawn
       GROUP BY name ORDER BY count(*) DESC, name LIMIT 10`,
    )
  ).map((r) => r.name);
  // The uncached workloads ask for a fresh answer: what a request costs when the data has just
  // changed, or the first time it is asked. The cached ones repeat a request at the same data
  // version (the response cache answers), against the same raw server, which has no cache.
  const all: Workload[] = [
    { key: 'list', name: 'list', method: 'GET', path: '/api/v1/issues', headers: uncached },
    { key: 'severity', name: 'list, severity', method: 'GET', path: '/api/v1/issues?severity=high', headers: uncached },
    { key: 'package', name: 'list, package', method: 'GET', path: `/api/v1/issues?package=${scan10[0]}`, headers: uncached },
    { key: 'search', name: 'list, search (broad word)', method: 'GET', path: '/api/v1/issues?search=injection', headers: uncached },
    { key: 'single', name: 'single issue', method: 'GET', path: `/api/v1/issues/${single!.id}`, headers: uncached },
    { key: 'stats', name: 'stats', method: 'GET', path: '/api/v1/stats', headers: uncached },
    { key: 'digest', name: 'digest', method: 'GET', path: '/api/v1/digest/latest', headers: uncached },
    { key: 'graphql-small', name: 'GraphQL, small selection', method: 'POST', path: '/graphql', body: { query: smallGraphqlQuery } },
    { key: 'scan-10', name: 'scan of 10 packages', method: 'POST', path: '/api/v1/scan', body: { packages: scan10 } },
    { key: 'cached-list', name: 'cached: list', method: 'GET', path: '/api/v1/issues' },
    { key: 'cached-list-br', name: 'cached: list, brotli', method: 'GET', path: '/api/v1/issues', headers: { 'accept-encoding': 'br' } },
    { key: 'cached-search', name: 'cached: list, search (broad word)', method: 'GET', path: '/api/v1/issues?search=injection' },
    { key: 'cached-single', name: 'cached: single issue', method: 'GET', path: `/api/v1/issues/${single!.id}` },
    { key: 'cached-stats', name: 'cached: stats', method: 'GET', path: '/api/v1/stats' },
    { key: 'cached-digest', name: 'cached: digest', method: 'GET', path: '/api/v1/digest/latest' },
  ];
  const only = options.only?.split(',');
  return only ? all.filter((w) => only.includes(w.key)) : all;
}

async function fetchBody(server: Server, workload: Workload): Promise<unknown> {
  const res = await fetch(server.base + workload.path, {
    method: workload.method,
    headers: requestHeaders(workload),
    body: workload.body ? JSON.stringify(workload.body) : undefined,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${server.name} answered ${res.status} to ${workload.name}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The first path at which two JSON values differ, for the failure message. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (canonicalize(a) === canonicalize(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const diff = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      if (diff) return diff;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}

/**
 * What compressing a cached body costs, once per entry and encoding (the server's own settings):
 * milliseconds of CPU (median of 5) and bytes, per distinct GET path.
 */
async function compressionCosts(real: Server, list: Workload[]): Promise<string[]> {
  const rows: string[] = [];
  const paths = [...new Set(list.filter((w) => w.method === 'GET').map((w) => w.path)), '/api/v1/issues?limit=100', '/api/v1/issues/stix?limit=100'];
  for (const path of paths) {
    const body = Buffer.from(await (await fetch(real.base + path, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
    const cells: string[] = [];
    for (const encoding of ['br', 'gzip'] as Encoding[]) {
      const times: number[] = [];
      let size = 0;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        size = (await compressors[encoding](body)).length;
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      cells.push(`${size.toLocaleString('en')} (${times[2]!.toFixed(2)} ms)`);
    }
    rows.push(`| \`${path.length > 60 ? `${path.slice(0, 57)}...` : path}\` | ${body.length.toLocaleString('en')} | ${cells.join(' | ')} |`);
  }
  return rows;
}

async function checkIdentical(reals: Server[], raw: Server, list: Workload[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const workload of list) {
    const b = await fetchBody(raw, workload);
    for (const real of reals) {
      const a = await fetchBody(real, workload);
      const diff = firstDifference(a, b);
      if (diff) throw new Error(`${workload.name}: the bodies of ${real.name} and ${raw.name} differ at ${diff}`);
      if (real === reals[0]) sizes.set(workload.name, JSON.stringify(a).length);
    }
  }
  return sizes;
}

interface Sample {
  /** Non-2xx answers, errors and timeouts (a server failing under load is a result, not a crash). */
  failed: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
}

async function drive(server: Server, workload: Workload, duration: number): Promise<Sample> {
  const cpuBefore = cpuMs(server.pid);
  const result = await autocannon({
    url: server.base + workload.path,
    method: workload.method,
    headers: requestHeaders(workload),
    body: workload.body ? JSON.stringify(workload.body) : undefined,
    connections,
    duration,
  });
  const cpu = cpuMs(server.pid) - cpuBefore;
  return {
    failed: result.errors + result.timeouts + result.non2xx,
    reqPerSec: result.requests.total / duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: cpu / result.requests.total,
  };
}

/** The .cpuprofile a server wrote into `dir` (the one that was not among `before`). */
async function profileWritten(dir: string, before: Set<string>): Promise<string> {
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
  if (!file) throw new Error(`no profile written into ${dir}`);
  return join(dir, file);
}

/**
 * One profiled process per workload and server (the real one, then the floor): 1 s warm-up, then
 * `seconds` under load, summarised. The floor's profile is what secwire's is read against.
 */
async function profile(target: Target, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const sections: string[] = [];
  const flags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const starters = [
    { name: 'secwire', start: () => startReal(target.env.real, flags) },
    { name: 'floor', start: () => startBaseline('floor', target.env.floor, flags) },
  ];
  for (const workload of target.workloads) {
    for (const { name, start } of starters) {
      const before = new Set(await readdir(dir));
      const server = await start();
      let sample: Sample;
      try {
        await drive(server, workload, 1);
        sample = await drive(server, workload, seconds);
      } finally {
        await server.stop();
      }
      const file = await profileWritten(dir, before);
      const summary = summariseProfile(file, 25, seconds * 1000);
      const figures = `${sample.reqPerSec.toFixed(0)} req/s, ${sample.cpuPerRequest.toFixed(2)} ms CPU/req`;
      console.error(`${workload.name}, ${name}: ${figures} (profiled, ${file})\n${summary}`);
      if (name === 'secwire')
        sections.push(`### ${workload.name} (\`${workload.method} ${workload.path}\`), ${sample.reqPerSec.toFixed(0)} req/s under the profiler\n\n${summary}`);
    }
  }
  const section = [
    `<!-- throughput-profile-${target.kind}:begin -->`,
    `### Where the real server's CPU goes under load (\`npm run bench -- throughput --cpu-prof <dir>${options.only ? ` --only ${options.only}` : ''} --seconds ${seconds}\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(
        ' / ',
      )}), ${databaseName[target.kind]}, ${issueCount.toLocaleString('en')} issues, autocannon -c ${connections}. The server runs as \`npm start\` runs it plus \`--cpu-prof\`; only the samples of the last ${seconds} s (under load, after a 1 s warm-up) count, idle excluded. Self time: the function itself, not what it calls. Packages: node_modules/<name>, the project's src/<folder>, node internals, and V8's own entries such as (garbage collector) and (program).`,
    '',
    ...sections,
    `<!-- throughput-profile-${target.kind}:end -->`,
  ].join('\n');
  console.log(section);
  if (!options['no-readme']) await writeReadmeSection(`throughput-profile-${target.kind}`, section);
}

/**
 * Waits until the previous run has drained: autocannon stops sending at the end of its duration,
 * but the requests already queued in the server and the database still run, and would be charged
 * to the next run. Drained = no statement running in the database and no server process busy.
 */
async function quiesce(target: Target, servers: Server[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const before = servers.map((s) => cpuMs(s.pid));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const busy = servers.some((s, i) => cpuMs(s.pid) - before[i]! > 20);
    if (!busy && (await target.activeStatements()) === 0) return;
    if (Date.now() > deadline) return console.error('still busy after 120 s; going on');
  }
}

/** The collector's pauses in these --trace-gc lines (V8: "<kind> ... MB, <main-thread ms> / <ms> ms ..."), by kind: count, total, longest. */
function gcPauses(lines: string[], seconds: number): string {
  const kinds = new Map<string, number[]>();
  for (const line of lines) {
    const m = /ms: (Scavenge|Mark-Compact(?: \(reduce\))?|Minor Mark-Sweep|Mark-Sweep)\b.*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(line);
    if (m) kinds.set(m[1]!, [...(kinds.get(m[1]!) ?? []), Number(m[2])]);
  }
  const parts = [...kinds].map(([kind, ms]) => `${ms.length} ${kind} (${sum(ms).toFixed(0)} ms, longest ${Math.max(...ms).toFixed(1)} ms)`);
  const total = sum([...kinds.values()].flat());
  return `gc: ${parts.join(', ') || 'none'}; ${((total / (seconds * 1000)) * 100).toFixed(1)}% of the run`;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: number[]) => sum(values) / values.length;

const databaseName = { postgres: 'PostgreSQL', pglite: 'PGlite' };

async function main() {
  const started = new Date();
  const loadStart = loadavg();
  const target = await prepare(options.db === 'pglite' ? 'pglite' : 'postgres');
  const servers: Server[] = [];
  try {
    if (options['cpu-prof']) return await profile(target, options['cpu-prof']);
    const { served, workloads: list } = target;
    const real = await startReal(target.env.real, options['trace-gc'] ? ['--trace-gc'] : []);
    servers.push(real);
    const otherReal = other ? await startReal(target.env.other, [], other) : undefined;
    if (otherReal) servers.push(otherReal);
    const floor = await startBaseline('floor', target.env.floor);
    servers.push(floor);
    const raw = await startBaseline('raw', target.env.raw);
    servers.push(raw);
    const idle = { real: memoryMb(real.pid).rss, floor: memoryMb(floor.pid).rss, raw: memoryMb(raw.pid).rss };
    const sizes = await checkIdentical(otherReal ? [real, otherReal, floor] : [real, floor], raw, list);
    // What the response cache spends compressing each body: printed, not kept in the README.
    console.error(
      [
        'Compressing a body, once per cache entry and encoding (brotli quality 5, gzip level 6, thread pool; median of 5):',
        '| GET | identity bytes | brotli bytes (ms) | gzip bytes (ms) |',
        '|---|---|---|---|',
        ...(await compressionCosts(real, list)),
      ].join('\n'),
    );
    console.error(
      `identical bodies on all ${list.length} workloads; bytes: ${[...sizes].map(([name, bytes]) => `${name} ${bytes.toLocaleString('en')}`).join(', ')}`,
    );

    type Side = 'real' | 'floor' | 'raw' | 'other';
    const samples = new Map<string, Record<Side, Sample[]>>(list.map((w) => [w.name, { real: [], floor: [], raw: [], other: [] }]));
    const sideOf = (server: Server): Side => (server === real ? 'real' : server === floor ? 'floor' : server === raw ? 'raw' : 'other');
    for (const workload of list) {
      for (const server of servers) {
        await drive(server, workload, 1); // warm-up
        await quiesce(target, servers);
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const workload of list) {
        // Interleaved, and the order alternates, so drift in the machine's load hits all alike.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) {
          const linesBefore = server.output?.().length ?? 0;
          const sample = await drive(server, workload, seconds);
          if (options['trace-gc'] && server.output) console.error(`  ${gcPauses(server.output().slice(linesBefore), seconds)}`);
          await quiesce(target, servers);
          samples.get(workload.name)![sideOf(server)].push(sample);
          console.error(
            `round ${round + 1}, ${workload.name}, ${server.name}: ${sample.reqPerSec.toFixed(0)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms, ${sample.cpuPerRequest.toFixed(2)} ms CPU/req${sample.failed ? `, ${sample.failed} failed` : ''}`,
          );
        }
      }
    }
    const peak = { real: memoryMb(real.pid).peak, floor: memoryMb(floor.pid).peak, raw: memoryMb(raw.pid).peak };
    const loadEnd = loadavg();

    const f0 = (v: number) => v.toFixed(0);
    const f1 = (v: number) => v.toFixed(1);
    const f2 = (v: number) => v.toFixed(2);
    const rowsOut = list.map((w) => {
      const s = samples.get(w.name)!;
      const m = (side: Side, key: keyof Sample) => mean(s[side].map((x) => x[key]));
      /** Mean req/s of `a` over mean req/s of `b`; with `perRound`, then the same per round. */
      const ratio = (a: Side, b: Side, perRound = false) =>
        `**${f2(m(a, 'reqPerSec') / m(b, 'reqPerSec'))}**${perRound ? ` (${s[a].map((x, i) => f2(x.reqPerSec / s[b][i]!.reqPerSec)).join(', ')})` : ''}`;
      const each = (key: keyof Sample, f: (v: number) => string) => (['real', 'floor', 'raw'] as const).map((side) => f(m(side, key))).join(' / ');
      return `| ${w.name} | ${each('reqPerSec', f0)} | ${ratio('real', 'raw', true)} | ${ratio('floor', 'raw')} | ${ratio('real', 'floor')} | ${each('cpuPerRequest', f2)} |`;
    });
    // At a fixed concurrency the median latency follows req/s; only the tail and failures add to it.
    const failures = list.flatMap((w) => {
      const counts = (['real', 'floor', 'raw'] as const).map((side) => sum(samples.get(w.name)![side].map((x) => x.failed)));
      return counts.some(Boolean) ? [`${w.name} ${counts.join(' / ')}`] : [];
    });
    // The other checkout beside this one: its ratios to the same raw server in the same rounds.
    const beside = otherReal
      ? [
          `secwire / raw req/s, ${otherReal.name} (--secwire-dir) beside this checkout, same rounds:`,
          '',
          `| workload | ratio ${other!.commit} (per round) | ratio this checkout (per round) | CPU ms per request ${other!.commit} / this |`,
          '|---|---|---|---|',
          ...list.map((w) => {
            const s = samples.get(w.name)!;
            const ratio = (side: 'real' | 'other') => {
              const perRound = s[side].map((x, i) => x.reqPerSec / s.raw[i]!.reqPerSec);
              return `**${f2(mean(s[side].map((x) => x.reqPerSec)) / mean(s.raw.map((x) => x.reqPerSec)))}** (${perRound.map(f2).join(', ')})`;
            };
            const cpu = (side: 'real' | 'other') => f2(mean(s[side].map((x) => x.cpuPerRequest)));
            return `| ${w.name} | ${ratio('other')} | ${ratio('real')} | ${cpu('other')} / ${cpu('real')} |`;
          }),
          '',
        ]
      : [];
    const section = [
      `<!-- throughput-${target.kind}:begin -->`,
      `### ${databaseName[target.kind]} (\`npm run bench -- throughput --db ${target.kind} --issues ${issueCount} --seconds ${seconds} --rounds ${rounds}${options.only ? ` --only ${options.only}` : ''}\`)`,
      '',
      `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${measuredCommit()}, load average ${f1(loadStart[0]!)} at the start, ${f1(loadEnd[0]!)} at the end; ${issueCount.toLocaleString('en')} issues (${served.toLocaleString('en')} served).`,
      '',
      'Cells of three figures: secwire / floor / raw. Ratios are of req/s (secwire / raw per round in brackets).',
      '',
      '| workload | req/s | secwire / raw | floor / raw | secwire / floor | CPU ms per request |',
      '|---|---|---|---|---|---|',
      ...rowsOut,
      '',
      `Failed answers (secwire / floor / raw): ${failures.length ? failures.join('; ') : 'none'}.`,
      '',
      ...beside,
      `Idle RSS after start-up: secwire ${f0(idle.real)} MB, floor ${f0(idle.floor)} MB, raw ${f0(idle.raw)} MB; peak RSS over the run: secwire ${f0(peak.real)} MB, floor ${f0(peak.floor)} MB, raw ${f0(peak.raw)} MB.`,
      `<!-- throughput-${target.kind}:end -->`,
    ].join('\n');
    console.log(section);
    if (!options['no-readme']) await writeReadmeSection(`throughput-${target.kind}`, section);
  } finally {
    for (const server of servers) await server.stop();
    await target.close();
  }
}

await main();
