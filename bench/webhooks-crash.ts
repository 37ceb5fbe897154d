// At-least-once delivery across a SIGKILL, on PGlite and on PostgreSQL:
//   npx tsx bench/webhooks-crash.ts [--webhooks 20] [--issues 1000] [--per-request 20]
// Starts the real server (src/server/main.ts, production settings: 30 s claim lease, 15 s timeout),
// registers the webhooks through POST /api/v1/webhooks, ingests the issues through
// POST /api/v1/admin/ingest (--per-request items per POST, so one event each), SIGKILLs the server
// while deliveries are going out, starts it again and waits until every (webhook, issue) pair has
// arrived. Reports lost pairs (must be 0) and duplicates. The receiver (HTTPS on 127.0.0.1, a
// certificate made for the run and trusted through NODE_EXTRA_CA_CERTS) answers after 100 ms,
// so deliveries are still in flight when the kill comes. Each duplicate is told apart by when its
// first copy was answered: after the kill (in flight, which at-least-once must send again) or
// before it (answered, but its outcome not yet recorded). --runs repeats each database. Results replace the "Webhook delivery
// across SIGKILL" section of bench/components.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createReceiver, testCertificate, type Receiver } from '../test/helpers/https-receiver.js';
import { writeReadmeSection } from './readme.js';

const { values } = parseArgs({
  options: {
    webhooks: { type: 'string', default: '20' },
    issues: { type: 'string', default: '1000' },
    'per-request': { type: 'string', default: '20' },
    runs: { type: 'string', default: '1' },
    'database-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  },
});
const webhookCount = Number(values.webhooks);
const issueCount = Number(values.issues);
const perRequest = Number(values['per-request']);
const runs = Number(values.runs);
const adminUrl = values['database-url']!;
const webhookKey = 'bench-webhook-key';
const adminKey = 'bench-admin-key';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(base: string, child: ChildProcess, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server not ready in time');
}

function startServer(env: Record<string, string>): ChildProcess {
  // Node itself with tsx's loader, so SIGKILL reaches the server process and not a launcher.
  return spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: { ...process.env, REGISTRY_LOOKUP: 'false', SOURCES: '[]', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

interface Outcome {
  database: string;
  pairs: number;
  deliveries: number;
  receivedAtKill: number;
  killAfterS: number;
  recoveredAfterS: number;
  lost: number;
  duplicateDeliveries: number;
  /** Duplicates whose first copy the receiver answered before the kill. */
  answeredBeforeKill: number;
  duplicatePairs: number;
  pairsUnderTwoIds: number;
}

/** When the receiver answered each webhook-id first (performance.now()). */
const answeredAt = new Map<string, number>();

async function run(database: 'pglite' | 'postgres', receiver: Receiver, caFile: string): Promise<Outcome> {
  receiver.requests.length = 0;
  answeredAt.clear();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let dataDir: string | undefined;
  let scratch: string | undefined;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    SEED_SAMPLE_DATA: 'false',
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_API_KEY: webhookKey,
    ADMIN_API_KEY: adminKey,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  if (database === 'pglite') {
    dataDir = await mkdtemp(join(tmpdir(), 'secwire-bench-crash-'));
    Object.assign(env, { DATA_DIR: dataDir, DATABASE_URL: '' });
  } else {
    scratch = `secwire_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${scratch}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${scratch}`;
    env.DATABASE_URL = url.toString();
  }
  const children: ChildProcess[] = [];
  try {
    const first = startServer(env);
    children.push(first);
    await waitReady(base, first);

    const hooks: string[] = [];
    for (let i = 0; i < webhookCount; i++) {
      const res = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${webhookKey}` },
        body: JSON.stringify({ url: receiver.url(`/hook-${i}`) }),
      });
      if (res.status !== 201) throw new Error(`registration answered ${res.status}`);
      hooks.push(`/hook-${i}`);
    }

    const started = performance.now();
    const run = randomBytes(4).toString('hex');
    const issueIds: string[] = [];
    for (let start = 0; start < issueCount; start += perRequest) {
      const items = Array.from({ length: Math.min(perRequest, issueCount - start) }, (_, k) => ({
        title: `Prompt injection in an LLM agent (${run} #${start + k})`,
        url: `https://example.org/crash/${run}/${start + k}`,
        publishedAt: '2025-06-01',
        type: 'vulnerability',
      }));
      const res = await fetch(`${base}/api/v1/admin/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
        body: JSON.stringify(items),
      });
      const { data } = (await res.json()) as { data: { created: number; ids: string[] } };
      if (data.created !== items.length) throw new Error(`ingest created ${data.created} of ${items.length}`);
      issueIds.push(...data.ids);
    }
    const pairs = issueIds.length * webhookCount;
    const pairsReceived = () => receiver.requests.reduce((n, r) => n + (r.json?.issues?.length ?? 0), 0);
    // Kill once ingestion is done and at least a third of the pairs are in, while the rest is in flight.
    await receiver.waitFor(() => pairsReceived() >= pairs / 3, 600_000);
    const killedAt = performance.now();
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const killAfterS = (performance.now() - started) / 1000;
    const receivedAtKill = pairsReceived();

    const restarted = performance.now();
    const second = startServer(env);
    children.push(second);
    await waitReady(base, second);
    const seen = (): Set<string> => {
      const set = new Set<string>();
      for (const r of receiver.requests) for (const issue of r.json?.issues ?? []) set.add(`${r.path} ${issue.id}`);
      return set;
    };
    await receiver.waitFor(() => seen().size >= pairs, 600_000).catch(() => {});
    const recoveredAfterS = (performance.now() - restarted) / 1000;
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));

    const expected = new Set(hooks.flatMap((h) => issueIds.map((id) => `${h} ${id}`)));
    const got = seen();
    const lost = [...expected].filter((p) => !got.has(p)).length;
    const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
    const duplicated = new Set(ids.filter((id, i) => ids.indexOf(id) !== i));
    const receipts = pairsReceived();
    // A pair that arrived under two different webhook-ids would be a duplicate a receiver cannot spot.
    const idsByPair = new Map<string, Set<string>>();
    for (const r of receiver.requests) {
      for (const issue of r.json?.issues ?? []) {
        const key = `${r.path} ${issue.id}`;
        idsByPair.set(key, (idsByPair.get(key) ?? new Set()).add(String(r.headers['webhook-id'])));
      }
    }
    return {
      database,
      pairs,
      deliveries: new Set(ids).size,
      receivedAtKill,
      killAfterS,
      recoveredAfterS,
      lost,
      duplicateDeliveries: ids.length - new Set(ids).size,
      answeredBeforeKill: [...duplicated].filter((id) => answeredAt.get(id)! < killedAt).length,
      duplicatePairs: receipts - got.size,
      pairsUnderTwoIds: [...idsByPair.values()].filter((s) => s.size > 1).length,
    };
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (scratch) {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
      await c.end();
    }
  }
}

const caDir = await mkdtemp(join(tmpdir(), 'secwire-bench-ca-'));
const caFile = join(caDir, 'ca.pem');
await writeFile(caFile, testCertificate().cert);
const receiver = await createReceiver(async (request) => {
  await new Promise((r) => setTimeout(r, 100));
  const id = String(request.headers['webhook-id']);
  if (!answeredAt.has(id)) answeredAt.set(id, performance.now());
  return 200;
});
const results: Outcome[] = [];
try {
  for (const database of ['pglite', 'postgres'] as const) {
    for (let i = 0; i < runs; i++) {
      results.push(await run(database, receiver, caFile));
      console.log(JSON.stringify(results.at(-1)));
    }
  }
} finally {
  await receiver.close();
  await rm(caDir, { recursive: true, force: true });
}

const label = { pglite: 'PGlite', postgres: 'PostgreSQL' };
const rows = results.map(
  (r) =>
    `| ${label[r.database as 'pglite']} | ${r.pairs} | ${r.deliveries} | ${r.receivedAtKill} (${r.killAfterS.toFixed(1)} s) | ${r.recoveredAfterS.toFixed(1)} s | **${r.lost}** | ` +
    `**${r.duplicateDeliveries}** (${r.duplicatePairs} pairs): ${r.duplicateDeliveries - r.answeredBeforeKill} / ${r.answeredBeforeKill} | ${r.pairsUnderTwoIds} |`,
);
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- webhooks-crash:begin -->
## Webhook delivery across SIGKILL (\`npx tsx bench/webhooks-crash.ts --webhooks ${webhookCount} --issues ${issueCount} --per-request ${perRequest} --runs ${runs}\`)

Measured ${when} UTC on this machine (2 shared cores, other work running). The real server
(\`src/server/main.ts\`), ${webhookCount} webhooks registered through \`POST /api/v1/webhooks\`, ${issueCount} issues ingested
through \`POST /api/v1/admin/ingest\` (${perRequest} per request, one event each), the receiver answering after
100 ms; the server is SIGKILLed once a third of the (webhook, issue) pairs have arrived, then
started again:

| database | pairs expected | deliveries | pairs in at the kill (s after first ingest) | restart to last pair | lost | duplicate deliveries: in flight at the kill / answered before it | pairs under two webhook-ids |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Duplicates go out again once their claims expire (30 s lease), with the same \`webhook-id\` and the
same issues (only \`deliveredAt\` differs), so a receiver that remembers ids drops them. Those in
flight at the kill (sent, not yet answered) must go again under at-least-once; those answered
before it were lost between the answer and its recorded outcome.
<!-- webhooks-crash:end -->`;

await writeReadmeSection('webhooks-crash', section);
console.log(section);
process.exit(results.some((r) => r.lost > 0) ? 1 : 0);
