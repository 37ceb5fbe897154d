// A soak (issue 40): the real server as operators run it (bin/secwire, compiled; PostgreSQL + Redis,
// or the embedded database) under an open-loop mixed load for minutes, per minute: the offered and
// served rate, p50/p99, 5xx, other non-2xx by status, the server's RSS and CPU; at the end, the
// webhook deliveries expected against those received (each exactly once).
// - Open loop: request i is due at start + i / rate and is sent then, whatever is still in flight;
//   its latency counts from when it was due, so a server that falls behind shows it in p99 and in
//   the served rate instead of slowing the load down.
// - Data: the sample data (SEED_SAMPLE_DATA), then --issues clones of the sample advisories through
//   the admin ingest; during the load a trickle of new clones (--ingest-every seconds, 3 a time), so
//   webhooks deliver and cached answers go stale as they do in service.
// - Callers: --addresses client addresses (X-Forwarded-For from a trusted proxy, 127.0.0.1) in
//   turn, and four API keys made through the admin route; the default rate limit (60 units a
//   minute per caller) stays on, so 429s are part of the figures.
// - Webhooks: each key registers one, at two local HTTPS receivers (a certificate made for the
//   run, trusted through NODE_EXTRA_CA_CERTS): two without filters, one for critical issues, one
//   watching a stack (whose findings and VEX are read in the mix).
//
//   npm run bench -- soak [--minutes 10] [--rate 200] [--db postgres|pglite] [--issues 3000]
//     [--cpu-prof <dir>]: the server runs under node --cpu-prof; its profile over the load is summarised
//     [--node-flags='<flags>']: Node flags for bin/secwire to add (V8's heap settings, --trace-gc)
//     [--no-readme]: print only (a short run, a profile), leaving bench/components.md as it is
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:http';
import { launcher } from '../test/helpers/npm-script.js';
import { createReceiver, testCertificate, type Receiver } from '../test/helpers/https-receiver.js';
import { adminHeaders, adminKey, clonedAdvisories, loadAdvisories } from '../test/helpers/samples.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { cpuMs } from './child-server.js';
import { summariseProfile } from './cpu-profile.js';
import { smallGraphqlQuery } from './graphql-queries.js';
import { measuredCommit, writeReadmeSection } from './readme.js';
import { emptyPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '200' },
    db: { type: 'string', default: 'postgres' },
    issues: { type: 'string', default: '3000' },
    addresses: { type: 'string', default: '1000' },
    'ingest-every': { type: 'string', default: '10' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'cpu-prof': { type: 'string' },
    'node-flags': { type: 'string', default: '' },
    'no-readme': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const database = values.db === 'pglite' ? 'pglite' : 'postgres';
const issueCount = Number(values.issues);
const addressCount = Number(values.addresses);
const ingestEverySeconds = Number(values['ingest-every']);
const profileDir = values['cpu-prof'];
const loadAtStart = loadavg()[0]!;

// The server runs as `npm start` runs it: compiled first.
execFileSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname], { stdio: 'inherit' });

// ---------------------------------------------------------------------------------------------
// The server, its receivers and its data

const scratchDir = await mkdtemp(join(tmpdir(), 'secwire-soak-'));
const caFile = join(scratchDir, 'ca.pem');
await writeFile(caFile, testCertificate().cert);
const scratch = database === 'postgres' ? await emptyPostgres() : undefined;
const env: Record<string, string> = {
  ADMIN_API_KEY: adminKey,
  TRUST_PROXY: '127.0.0.1',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  SEED_SAMPLE_DATA: 'true',
  LOG_LEVEL: 'info',
  NODE_EXTRA_CA_CERTS: caFile,
  ...(scratch
    ? { DATABASE_URL: scratch.url, REDIS_URL: values['redis-url']!, REDIS_KEY_PREFIX: `soak-${randomBytes(4).toString('hex')}:` }
    : { DATA_DIR: join(scratchDir, 'data') }),
};
const nodeFlags = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...values['node-flags']!.split(' ').filter(Boolean)];
const server = await startServerProcess(env, nodeFlags, launcher);
const pid = server.child.pid!;
const base = server.base;
// One connection pool for the whole load, large enough that an open loop never queues in the client;
// idle sockets are closed before the server's 5 s keep-alive would close them under a request.
const agent = new Agent({ keepAlive: true, maxSockets: 1024, timeout: 4_000 });

/** Status and body of one request (undefined status: no answer within 30 s, or the connection failed). */
function exchange(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status?: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, { method, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ text: '' }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ text: '' }));
    req.end(body);
  });
}

let setupAddress = 0;
/** An address of its own for each set-up request, so set-up never meets the rate limit. */
const setupHeaders = () => ({ 'x-forwarded-for': `10.250.${(++setupAddress >> 8) & 255}.${setupAddress & 255}` });

async function call(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await exchange(
    method,
    path,
    { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body === undefined ? undefined : JSON.stringify(body),
  );
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    json = res.text;
  }
  return { status: res.status ?? 0, json };
}

async function ingest(records: Record<string, unknown>[]): Promise<string[]> {
  const res = await call('POST', '/api/v1/admin/ingest', { ...adminHeaders, ...setupHeaders() }, { items: records });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.json)}`);
  return (res.json as { data: { ids: string[] } }).data.ids ?? [];
}

const seedStarted = performance.now();
const seedTag = randomBytes(2).toString('hex');
for (const batch of chunks(clonedAdvisories(issueCount, seedTag), 500)) await ingest(batch);
const seedSeconds = (performance.now() - seedStarted) / 1000;

// What the mix reads: served issue ids, and package names the advisories name (most named first).
const ids: string[] = [];
for (let offset = 0; ; offset += 100) {
  const page = await call('GET', `/api/v1/issues?limit=100&offset=${offset}`, setupHeaders());
  if (page.status !== 200) throw new Error(`list: ${page.status}`);
  ids.push(...(page.json as { data: { id: string }[] }).data.map((issue) => issue.id));
  if ((page.json as { data: unknown[] }).data.length < 100) break;
}
const named = new Map<string, number>();
for (const advisory of loadAdvisories()) {
  for (const affected of advisory.affected ?? []) {
    if (affected.package?.ecosystem === 'PyPI') named.set(affected.package.name, (named.get(affected.package.name) ?? 0) + 1);
  }
}
const packages = [...named].sort((a, b) => b[1] - a[1]).map(([name]) => name);

// Four API keys, each with a webhook at one of two receivers.
const receivers = [await createReceiver(() => 204), await createReceiver(() => 204)];
interface Hook {
  key: string;
  id: string;
  path: string;
  receiver: Receiver;
  /** Whether a new served issue of this severity goes to it (undefined: the stack decides, not counted). */
  wants?: (severity: string) => boolean;
}
const stack = packages.slice(0, 20).map((name) => `${name}@0.0.1`);
const hookShapes: { body: Record<string, unknown>; wants?: Hook['wants'] }[] = [
  { body: {}, wants: () => true },
  { body: { filters: { severity: 'critical' } }, wants: (severity) => severity === 'critical' },
  { body: { stack: { packages: stack } } },
  { body: {}, wants: () => true },
];
const hooks: Hook[] = [];
for (const [i, shape] of hookShapes.entries()) {
  const made = await call('POST', '/api/v1/admin/keys', { ...adminHeaders, ...setupHeaders() }, { name: `soak-${i}` });
  if (made.status !== 201) throw new Error(`key: ${made.status} ${JSON.stringify(made.json)}`);
  const key = (made.json as { data: { key: string } }).data.key;
  const receiver = receivers[i % 2]!;
  const path = `/hook-${i}`;
  const registered = await call('POST', '/api/v1/webhooks', { authorization: `Bearer ${key}` }, { url: receiver.url(path), ...shape.body });
  if (registered.status !== 201) throw new Error(`webhook: ${registered.status} ${JSON.stringify(registered.json)}`);
  hooks.push({ key, id: (registered.json as { data: { id: string } }).data.id, path, receiver, wants: shape.wants });
}

// ---------------------------------------------------------------------------------------------
// The mix

interface Shape {
  name: string;
  weight: number;
  next(n: number): { method: 'GET' | 'POST'; path: string; body?: unknown; key?: string };
}
const pick = <T>(list: T[], n: number) => list[n % list.length]!;
const severities = ['critical', 'high', 'medium', 'low'];
const gql = (query: string, variables?: Record<string, unknown>) => ({ method: 'POST' as const, path: '/graphql', body: { query, variables } });
const shapes: Shape[] = [
  { name: 'list', weight: 16, next: (n) => ({ method: 'GET', path: `/api/v1/issues${n % 4 ? '' : `?offset=${20 * (n % 10)}`}` }) },
  { name: 'list, severity', weight: 7, next: (n) => ({ method: 'GET', path: `/api/v1/issues?severity=${pick(severities, n)}&limit=${pick([20, 50], n)}` }) },
  { name: 'list, package', weight: 7, next: (n) => ({ method: 'GET', path: `/api/v1/issues?package=${encodeURIComponent(pick(packages, n))}` }) },
  {
    name: 'list, search',
    weight: 4,
    next: (n) => ({ method: 'GET', path: `/api/v1/issues?search=${pick(['injection', 'prompt', 'remote code', 'deserialization', 'langchain'], n)}` }),
  },
  { name: 'list, type and since', weight: 3, next: (n) => ({ method: 'GET', path: `/api/v1/issues?issueType=vulnerability&since=202${3 + (n % 3)}-01-01` }) },
  { name: 'single issue', weight: 16, next: (n) => ({ method: 'GET', path: `/api/v1/issues/${pick(ids, n * 7919)}` }) },
  { name: 'digest', weight: 5, next: () => ({ method: 'GET', path: '/api/v1/digest/latest' }) },
  { name: 'stats', weight: 5, next: () => ({ method: 'GET', path: '/api/v1/stats' }) },
  { name: 'atom', weight: 2, next: () => ({ method: 'GET', path: '/api/v1/issues.atom' }) },
  { name: 'GraphQL list', weight: 8, next: () => gql(smallGraphqlQuery) },
  {
    name: 'GraphQL filtered',
    weight: 4,
    next: (n) =>
      gql(`query($s: Severity) { issues(limit: 10, severity: $s) { data { id title cveId affectedPackages } meta { total } } }`, { s: pick(severities, n) }),
  },
  {
    name: 'GraphQL issue',
    weight: 4,
    next: (n) => gql(`query($id: ID!) { issue(id: $id) { data { id title summary severity cvssScore } } }`, { id: pick(ids, n * 104_729) }),
  },
  { name: 'GraphQL stats', weight: 2, next: () => gql('{ stats { data { total } } }') },
  {
    name: 'scan',
    weight: 4,
    next: (n) => ({ method: 'POST', path: '/api/v1/scan', body: { packages: Array.from({ length: 10 }, (_, k) => `${pick(packages, n + k * 3)}@0.0.${k}`) } }),
  },
  { name: 'CSV export', weight: 1, next: (n) => ({ method: 'GET', path: `/api/issues/export?severity=${pick(severities, n)}` }) },
  { name: 'STIX', weight: 1, next: (n) => ({ method: 'GET', path: `/api/v1/issues/stix?severity=${pick(severities, n)}` }) },
  { name: 'webhook findings', weight: 0.5, next: () => ({ method: 'GET', path: `/api/v1/webhooks/${hooks[2]!.id}/findings`, key: hooks[2]!.key }) },
  { name: 'webhook VEX', weight: 0.5, next: () => ({ method: 'GET', path: `/api/v1/webhooks/${hooks[2]!.id}/findings/vex`, key: hooks[2]!.key }) },
  { name: 'list, with a key', weight: 1, next: (n) => ({ method: 'GET', path: `/api/v1/issues?severity=high&offset=${n % 50}`, key: pick(hooks, n).key }) },
];
const totalWeight = shapes.reduce((sum, s) => sum + s.weight, 0);
/** A fixed, well-spread sequence of shapes: request i is of shape sequence[i % length]. */
const sequence: Shape[] = [];
for (const shape of shapes) for (let k = 0; k < shape.weight * 2; k++) sequence.push(shape);
for (let i = sequence.length - 1; i > 0; i--) {
  const j = (i * 2_654_435_761) % (i + 1);
  [sequence[i], sequence[j]] = [sequence[j]!, sequence[i]!];
}

// ---------------------------------------------------------------------------------------------
// The load

interface Minute {
  offered: number;
  served: number;
  latencies: number[];
  fiveHundreds: number;
  others: Record<string, number>;
  /** Answers not received: connection errors and requests given up on after 30 s. */
  failed: number;
  rssMb: number;
  cpuPercent: number;
  inFlight: number;
}
const perMinute: Minute[] = Array.from({ length: minutes }, () => ({
  offered: 0,
  served: 0,
  latencies: [],
  fiveHundreds: 0,
  others: {},
  failed: 0,
  rssMb: 0,
  cpuPercent: 0,
  inFlight: 0,
}));
const byShape = new Map<string, { latencies: number[]; statuses: Record<string, number> }>();
let inFlight = 0;

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const rssAtStart = rssMb();
const started = performance.now();
const minuteOf = (at: number) => Math.min(minutes - 1, Math.floor((at - started) / 60_000));

async function send(i: number, due: number): Promise<void> {
  const shape = sequence[i % sequence.length]!;
  const { method, path, body, key } = shape.next(Math.floor(i / sequence.length) + i);
  const headers: Record<string, string> = key
    ? { authorization: `Bearer ${key}` }
    : { 'x-forwarded-for': `10.${(i % addressCount) >> 16}.${((i % addressCount) >> 8) & 255}.${(i % addressCount) & 255}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const minute = perMinute[minuteOf(due)]!;
  minute.offered++;
  inFlight++;
  const { status } = await exchange(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  inFlight--;
  const done = performance.now();
  perMinute[minuteOf(done)]!.served += status === undefined ? 0 : 1;
  const stats = byShape.get(shape.name) ?? { latencies: [], statuses: {} };
  byShape.set(shape.name, stats);
  const label = status === undefined ? 'failed' : String(status);
  stats.statuses[label] = (stats.statuses[label] ?? 0) + 1;
  if (status === undefined) minute.failed++;
  else {
    minute.latencies.push(done - due);
    stats.latencies.push(done - due);
    if (status >= 500) minute.fiveHundreds++;
    else if (status >= 300) minute.others[status] = (minute.others[status] ?? 0) + 1;
  }
}

// The trickle of new issues, and what each webhook should receive of it.
const trickleIds: string[] = [];
let trickleFailures = 0;
const trickleTag = randomBytes(2).toString('hex');
let trickled = 0;
const trickle = setInterval(() => {
  const records = clonedAdvisories(trickled + 3, trickleTag).slice(trickled);
  trickled += 3;
  ingest(records).then(
    (created) => trickleIds.push(...created),
    () => trickleFailures++,
  );
}, ingestEverySeconds * 1000);

let cpuBefore = cpuMs(pid);
const sampler = setInterval(() => {
  const minute = perMinute[Math.min(minutes - 1, Math.round((performance.now() - started) / 60_000) - 1)];
  if (!minute) return;
  minute.rssMb = rssMb();
  const cpu = cpuMs(pid);
  minute.cpuPercent = (100 * (cpu - cpuBefore)) / 60_000;
  cpuBefore = cpu;
  minute.inFlight = inFlight;
  console.error(`minute ${perMinute.indexOf(minute) + 1}: ${row(minute, perMinute.indexOf(minute))}`);
}, 60_000);

const pending: Promise<void>[] = [];
const total = Math.round(minutes * 60 * rate);
await new Promise<void>((resolve) => {
  let sent = 0;
  const tick = () => {
    const dueNow = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
    for (; sent < dueNow; sent++) pending.push(send(sent, started + (sent * 1000) / rate));
    if (sent >= total) return resolve();
    setTimeout(tick, 2);
  };
  tick();
});
clearInterval(trickle);
await Promise.all(pending);
await new Promise((resolve) => setTimeout(resolve, 1_000));
clearInterval(sampler);
const lastMinute = perMinute.at(-1)!;
if (!lastMinute.rssMb) {
  lastMinute.rssMb = rssMb();
  lastMinute.cpuPercent = (100 * (cpuMs(pid) - cpuBefore)) / Math.max(1, performance.now() - started - (minutes - 1) * 60_000);
}

// ---------------------------------------------------------------------------------------------
// Deliveries: every new served issue to each webhook that wants it, once

const trickleIssues = new Map<string, string>(); // id -> severity, of those served
for (const id of trickleIds) {
  const res = await call('GET', `/api/v1/issues/${id}`, setupHeaders());
  if (res.status === 200) trickleIssues.set(id, (res.json as { data: { severity: string } }).data.severity);
}
const expected = new Set<string>();
for (const hook of hooks) {
  if (!hook.wants) continue;
  for (const [id, severity] of trickleIssues) if (hook.wants(severity)) expected.add(`${hook.path} ${id}`);
}
const receivedPairs = () => {
  const seen = new Map<string, number>();
  for (const receiver of receivers) {
    for (const req of receiver.requests) {
      if (req.json?.event !== 'new_issues') continue;
      for (const issue of req.json.issues as { id: string }[]) seen.set(`${req.path} ${issue.id}`, (seen.get(`${req.path} ${issue.id}`) ?? 0) + 1);
    }
  }
  return seen;
};
const deliveryDeadline = performance.now() + 120_000;
while (performance.now() < deliveryDeadline && [...expected].some((pair) => !receivedPairs().has(pair))) await new Promise((r) => setTimeout(r, 500));
// Late duplicates (a retry of something already received) would come within the worker's next passes.
await new Promise((r) => setTimeout(r, 5_000));
const seen = receivedPairs();
const countedPaths = new Set(hooks.filter((h) => h.wants).map((h) => h.path));
const deliveries = {
  expected: expected.size,
  received: [...expected].filter((pair) => seen.has(pair)).length,
  duplicates: [...seen.values()].filter((n) => n > 1).length,
  unexpected: [...seen.keys()].filter((pair) => countedPaths.has(pair.split(' ')[0]!) && !expected.has(pair)).length,
  stack: [...seen.keys()].filter((pair) => pair.startsWith(`${hooks[2]!.path} `)).length,
};

// What the server logged above info, by message and error (the 5xx's causes).
const logged = new Map<string, number>();
for (const line of server.lines()) {
  if (line.level !== 'warn' && line.level !== 'error') continue;
  const err = (line as { err?: { message?: string } }).err?.message;
  const what = `${line.level} ${line.msg}${err ? `: ${err.split('\n')[0]!.slice(0, 120)}` : ''}`;
  logged.set(what, (logged.get(what) ?? 0) + 1);
}
await server.stop();
agent.destroy();
for (const receiver of receivers) await receiver.close();
await scratch?.drop();
await rm(scratchDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
// The figures

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}
function row(m: Minute, i: number): string {
  const others = Object.entries(m.others)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return `| ${i + 1} | ${(m.offered / 60).toFixed(0)} | ${(m.served / 60).toFixed(0)} | ${Math.round(percentile(m.latencies, 50))} / **${Math.round(percentile(m.latencies, 99))}** | ${m.fiveHundreds} | ${others || 'none'}${m.failed ? `; no answer: ${m.failed}` : ''} | ${Math.round(m.rssMb)} | ${Math.round(m.cpuPercent)} | ${m.inFlight} |`;
}
const afterFirst = perMinute.slice(1).flatMap((m) => m.latencies);
const lastFive = perMinute.slice(-5);
const rssFrom = lastFive.length === 5 && minutes > 5 ? perMinute[minutes - 6]!.rssMb : rssAtStart;
const rssGrowth = (100 * (Math.max(...lastFive.map((m) => m.rssMb)) - rssFrom)) / rssFrom;
const fiveHundreds = perMinute.reduce((sum, m) => sum + m.fiveHundreds, 0);
const shapeRows = shapes.map((shape) => {
  const stats = byShape.get(shape.name) ?? { latencies: [], statuses: {} };
  const statuses = Object.entries(stats.statuses)
    .sort()
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return `| ${shape.name} | ${((100 * shape.weight) / totalWeight).toFixed(1)}% | ${Math.round(percentile(stats.latencies, 50))} / ${Math.round(percentile(stats.latencies, 99))} | ${statuses} |`;
});
const dbName = database === 'postgres' ? 'PostgreSQL + Redis' : 'PGlite';
const command = `npm run bench -- soak --db ${database} --minutes ${minutes} --rate ${rate} --issues ${issueCount}`;
const section = `<!-- soak-${database}:begin -->
### ${dbName} (\`${command}\`)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${measuredCommit()}, load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end${profileDir ? ', under --cpu-prof' : ''}.
${(ids.length).toLocaleString('en')} served issues at the start (the sample data and ${issueCount.toLocaleString('en')} clones, seeded in ${seedSeconds.toFixed(0)} s); ${trickled} more ingested during the load (3 every ${ingestEverySeconds} s);
${addressCount.toLocaleString('en')} client addresses in turn and 4 API keys, the default rate limit. Latency from when a request was due (open loop).

| minute | offered req/s | served req/s | p50 / **p99** ms | 5xx | other non-2xx | RSS MB | server CPU % | in flight at the end |
|---|---|---|---|---|---|---|---|---|
${perMinute.map(row).join('\n')}

After the first minute: p99 **${Math.round(percentile(afterFirst, 99))} ms** (target < 200); 5xx: **${fiveHundreds}**; RSS over the last five minutes: **${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(1)}%** (from ${Math.round(rssFrom)} MB; target < 10%).
Webhook deliveries (new issues to the three webhooks with filters): **${deliveries.received} of ${deliveries.expected}** expected pairs received, ${deliveries.duplicates} received twice or more, ${deliveries.unexpected} not expected; the stack webhook received ${deliveries.stack}. Trickle ingests failed: ${trickleFailures}.

| request | share | p50 / p99 ms | answers |
|---|---|---|---|
${shapeRows.join('\n')}
<!-- soak-${database}:end -->`;

console.log(section);
console.log(
  `\nServer log lines above info: ${
    logged.size
      ? [...logged]
          .sort((a, b) => b[1] - a[1])
          .map(([what, n]) => `\n  ${n} x ${what}`)
          .join('')
      : 'none'
  }`,
);
if (profileDir) {
  const files = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  if (files.length)
    console.log(`\nCPU profile of the server over the load (${files.at(-1)}):\n\n${summariseProfile(join(profileDir, files.at(-1)!), 40, minutes * 60_000)}`);
}
if (!values['no-readme'] && !profileDir) await writeReadmeSection(`soak-${database}`, section);
process.exit(0);

function chunks<T>(list: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
}
