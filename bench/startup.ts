// Start-up time and memory of the real server process, as `npm start` runs it (compiled JavaScript;
// Liftoff only on the embedded database), with V8's defaults, and through the tsx loader, side by
// side in one run:
// - seconds from spawn to the first answer of GET /api/v1/issues?limit=1;
// - what the Liftoff-only choice costs once warm: seconds for a fixed round of list, search and
//   stats requests, after one round of warm-up;
// - peak RSS (the kernel's VmHWM) and RSS after 30 s idle (VmRSS);
// on a fresh embedded database (unpacked from the cluster `npm install` seeded; for `npm start` also
// seeded at start, SEED_FROM_TEMPLATE=false, as before that cluster existed), on a restart of that
// database, and on a fresh PostgreSQL database and a restart on it. Writes its table into bench/README.md.
//   npm run bench -- startup --postgres-only [--repeat N]: only `npm start` on a fresh PostgreSQL
//   database and its restart, N times (to compare idle RSS between builds side by side), printed,
//   not written.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measuredCommit, writeReadmeSection } from './readme.js';
import { launcher } from '../test/helpers/npm-script.js';
import { emptyPostgres } from './scratch-databases.js';

const { values: options } = parseArgs({
  options: {
    'postgres-only': { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
  },
});

const root = fileURLToPath(new URL('..', import.meta.url));
// Each runner: the command and its arguments (`npm start` runs bin/secwire).
const runners = {
  'npm start': [launcher],
  'compiled, V8 defaults': [process.execPath, '--max-semi-space-size=16', '--enable-source-maps', 'dist/server/main.js'],
  tsx: [process.execPath, '--max-semi-space-size=16', '--import', 'tsx', 'src/server/main.ts'],
};
const warmRound = ['/api/v1/issues?limit=20', '/api/v1/issues?limit=20&search=injection', '/api/v1/issues?limit=20&severity=critical', '/api/v1/stats'];
const warmRounds = 50;
// The idle collection (src/idle-collection.ts) looks every 5 s and collects after four quiet looks: up to 25 s
// after the warm round; read a little later than that.
const idleSeconds = 30;

interface Measurement {
  firstAnswerS: number;
  warmS: number;
  peakMb: number;
  idleMb: number;
}

/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function statusMb(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

async function measure([command, ...args]: string[], env: Record<string, string>): Promise<Measurement> {
  const started = performance.now();
  const child = spawn(command!, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', REGISTRY_LOOKUP: 'false', SOURCES: '[]', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let base: string | undefined;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
      base ??= /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
      const ok =
        base &&
        (await fetch(`${base}/api/v1/issues?limit=1`).then(
          (r) => r.ok,
          () => false,
        ));
      if (ok) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const firstAnswerS = (performance.now() - started) / 1000;
    const round = () => Promise.all(warmRound.map((path) => fetch(base + path, { headers: { 'cache-control': 'no-cache' } }).then((r) => r.arrayBuffer())));
    for (let i = 0; i < warmRounds; i++) await round();
    const warmStarted = performance.now();
    for (let i = 0; i < warmRounds; i++) await round();
    const warmS = (performance.now() - warmStarted) / 1000;
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    return { firstAnswerS, warmS, peakMb: statusMb(child.pid!, 'VmHWM'), idleMb: statusMb(child.pid!, 'VmRSS') };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * A fresh PostgreSQL database (the server migrates and seeds it in its own process), then a restart
 * on it: what migrating leaves in the process is the difference.
 */
async function onPostgres(args: string[], url: string): Promise<[string, Measurement][]> {
  const env = { DATABASE_URL: url, SEED_SAMPLE_DATA: 'true' };
  return [
    ['PostgreSQL, fresh (migrate + seed)', await measure(args, env)],
    ['PostgreSQL, restart', await measure(args, env)],
  ];
}

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (options['postgres-only']) {
  for (let i = 0; i < Number(options.repeat); i++) {
    const postgres = await emptyPostgres();
    const measured = await onPostgres(runners['npm start'], postgres.url).finally(() => postgres.drop());
    for (const [database, m] of measured) {
      console.log(`| npm start | ${database} | ${m.firstAnswerS.toFixed(2)} | ${m.warmS.toFixed(2)} | ${m.peakMb.toFixed(0)} | ${m.idleMb.toFixed(0)} |`);
    }
  }
  process.exit(0);
}
// What `npm install` leaves, built from the code measured here (a stale one would be skipped).
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/pglite-template.ts'], { cwd: root, stdio: 'inherit' });
const rows: string[] = [];
for (const [runner, args] of Object.entries(runners)) {
  const dataDir = await mkdtemp(join(tmpdir(), 'secwire-startup-'));
  const embedded = { DATA_DIR: dataDir, DATABASE_URL: '', SEED_SAMPLE_DATA: 'true' };
  const fresh = await measure(args, embedded);
  const restart = await measure(args, embedded);
  await rm(dataDir, { recursive: true, force: true });
  const measured: [string, Measurement][] = [
    ['PGlite, fresh (seeded cluster)', fresh],
    ['PGlite, restart', restart],
  ];
  if (runner === 'npm start') {
    const seedDir = await mkdtemp(join(tmpdir(), 'secwire-startup-'));
    measured.push(['PGlite, fresh, seeded at start', await measure(args, { ...embedded, DATA_DIR: seedDir, SEED_FROM_TEMPLATE: 'false' })]);
    await rm(seedDir, { recursive: true, force: true });
  }
  const postgres = await emptyPostgres();
  try {
    measured.push(...(await onPostgres(args, postgres.url)));
  } finally {
    await postgres.drop();
  }
  for (const [database, m] of measured) {
    const row = `| ${runner} | ${database} | ${m.firstAnswerS.toFixed(2)} | ${m.warmS.toFixed(2)} | ${m.peakMb.toFixed(0)} | ${m.idleMb.toFixed(0)} |`;
    console.log(row);
    rows.push(row);
  }
}

const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
await writeReadmeSection(
  'startup',
  `<!-- startup:begin -->
Measured ${when} UTC on ${measuredCommit()}, load average ${loadavg()[0]!.toFixed(1)} at the end.

| runner | database | first answer s | warm s | peak RSS MB | idle RSS MB |
|---|---|---|---|---|---|
${rows.join('\n')}
<!-- startup:end -->`,
);
