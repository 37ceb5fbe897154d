// One key reading its 1,000-component stack's VEX as fast as its rate-limit budget allows, while
// other clients read the issue list (issue 40: a 25.7 MB VEX once a second, at 1 unit, raised
// everyone else's p99 from 12 to 794 ms). The real listening server with the default budget (60
// units a minute), on the embedded database or PostgreSQL; `--issues` clones of the sample
// advisories ingested through the admin route; the stack is 100 versions of each of the ten
// packages those advisories name most, so most issues match and each names many components.
// - The others run in a process of their own (a blocked event loop here would also delay their
//   sends), one request at a time, each from an address of its own (X-Forwarded-For, trusted), with
//   Cache-Control: no-cache so each read goes to the database; first alone, then beside the loop.
// - The loop asks for the largest VEX page (limit=1000) in turn from each offset; a 429 waits its
//   Retry-After, as a client that honours it does.
//
//   npx tsx bench/stack-loop.ts [--db pglite|postgres] [--issues 4000] [--seconds 30]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { buffer } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { testConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { createApp } from '../src/server/app.js';
import { adminHeaders, adminKey, clonedAdvisories, loadAdvisories } from '../test/helpers/samples.js';
import { measuredCommit, writeReadmeSection } from './readme.js';
import { fileURLToPath } from 'node:url';
import { scratchPGlite, scratchPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    issues: { type: 'string', default: '4000' },
    seconds: { type: 'string', default: '30' },
  },
});
const issues = Number(values.issues);
const seconds = Number(values.seconds);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const webhookKey = 'bench-webhook-key-0123456789';

const bench = values.db === 'postgres' ? await scratchPostgres() : await scratchPGlite();
const config = testConfig({ rateLimitPerMinute: 60, trustProxy: true, webhookApiKey: webhookKey, adminApiKey: adminKey, webhookAllowPrivateTargets: true });
const { pubsub } = createIssuePubSub(config);
const app = createApp({ config, db: bench.db, log: createLogger('error'), pubsub });
const server = createHttpServer(app);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// ---- the data: clones of the sample advisories, ingested as an upstream's would be
const records = clonedAdvisories(issues, 'b10c');
for (let i = 0; i < records.length; i += 500) {
  const res = await fetch(`${base}/api/v1/admin/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.1.${i / 500}.1`, ...adminHeaders },
    body: JSON.stringify({ items: records.slice(i, i + 500) }),
  });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
}
const named = new Map<string, number>();
for (const advisory of loadAdvisories()) {
  for (const affected of advisory.affected ?? []) {
    if (affected.package?.ecosystem === 'PyPI') named.set(affected.package.name, (named.get(affected.package.name) ?? 0) + 1);
  }
}
const topNames = [...named].sort((a, b) => b[1] - a[1]).slice(0, 10);
const stack = topNames.flatMap(([name]) => Array.from({ length: 100 }, (_, v) => `${name}@0.0.${v}`));
const key = { authorization: `Bearer ${webhookKey}` };
const registered = await fetch(`${base}/api/v1/webhooks`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', ...key },
  body: JSON.stringify({ url: 'https://127.0.0.1:9/hook', stack: { packages: stack } }),
});
if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
const hookId = ((await registered.json()) as { data: { id: string } }).data.id;

// ---- the others

async function others(during: () => Promise<void>) {
  const reader = spawn(process.execPath, [fileURLToPath(new URL('./other-reader.mjs', import.meta.url)), base, 'rotate'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const output = buffer(reader.stdout!);
  await during();
  reader.stdin!.end('stop');
  const { latencies, errors } = JSON.parse((await output).toString()) as { latencies: number[]; errors: number };
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const alone = await others(() => sleep(seconds * 1000));

const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const reads: { ms: number; bytes: number }[] = [];
let refused = 0;
let total = Number.NaN;
const beside = await others(async () => {
  const until = performance.now() + seconds * 1000;
  for (let offset = 0; performance.now() < until; ) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/webhooks/${hookId}/findings/vex?limit=1000&offset=${offset}`, { headers: key });
    const body = await res.arrayBuffer();
    if (res.status === 429) {
      refused++;
      await sleep(Math.min(until - performance.now(), Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (res.status !== 200) throw new Error(`vex: ${res.status}`);
    reads.push({ ms: performance.now() - started, bytes: body.byteLength });
    const properties = (JSON.parse(Buffer.from(body).toString()) as { metadata: { properties: { name: string; value: string }[] } }).metadata.properties;
    total = Number(properties.find((p) => p.name === 'secwire:total')!.value);
    offset = offset + 1000 < total ? offset + 1000 : 0;
  }
});
clearInterval(sampler);

const ms = (v: number) => `${Math.round(v)} ms`;
const readMs = reads.map((r) => r.ms).sort((a, b) => a - b);
// One section per database, each replaced by its own run.
const marker = `stack-loop-${values.db === 'postgres' ? 'postgres' : 'pglite'}`;
const section = `<!-- ${marker}:begin -->
### ${values.db === 'postgres' ? 'PostgreSQL' : 'PGlite'} (\`npm run bench -- stack-loop --db ${values.db} --issues ${issues} --seconds ${seconds}\`)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${measuredCommit()}, load average ${loadavg()[0]!.toFixed(1)} at the end, ${values.db === 'postgres' ? 'PostgreSQL' : 'PGlite'}.
${issues.toLocaleString('en')} issues (clones of the sample advisories); one key's webhook watches 1,000 components (100 versions of each of the
ten packages the advisories name most), matching ${total.toLocaleString('en')} issues. The rate limit is the default 60 units a minute; the
key reads VEX pages of 1,000 vulnerabilities (14 units each) as fast as that allows, honouring Retry-After. The others
read \`/api/v1/issues?limit=20\` one at a time, each request from an address of its own, uncached.

| figure | others alone | **beside the loop** |
|---|---|---|
| others' requests (errors) | ${alone.requests} (${alone.errors}) | ${beside.requests} (${beside.errors}) |
| others' p50 / **p99** | ${ms(alone.p50)} / **${ms(alone.p99)}** | ${ms(beside.p50)} / **${ms(beside.p99)}** |
| the key's VEX pages served / refused (429) | | ${reads.length} / ${refused} |
| a VEX page: size, time (median) | | ${(Math.max(...reads.map((r) => r.bytes)) / 1e6).toFixed(1)} MB, ${ms(percentile(readMs, 50))} |
| RSS before / growth beside the loop | | ${mb(rssBefore)} MB / ${mb(peak - rssBefore)} MB |
<!-- ${marker}:end -->`;
await writeReadmeSection(marker, section);
console.log(section);
server.closeAllConnections();
server.close();
await bench.close();
process.exit(0);
