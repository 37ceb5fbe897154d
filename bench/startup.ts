// Start-up time and memory of the real server process, as `npm start` runs it (compiled JavaScript)
// and as it ran before (TypeScript through the tsx loader), side by side in one run:
// - seconds from spawn to the first answer of GET /api/v1/issues?limit=1;
// - peak RSS up to then (the kernel's VmHWM), and RSS after 10 s idle (VmRSS);
// on a fresh embedded database (migrations and the sample seed included), on a restart of that
// database, and on a fresh PostgreSQL database. Writes its table into bench/README.md.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeReadmeSection } from './readme.js';
import { emptyPostgres } from './scratch-databases.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const runners = {
  compiled: ['--max-semi-space-size=16', '--enable-source-maps', 'dist/main.js'],
  tsx: ['--max-semi-space-size=16', '--import', 'tsx', 'src/main.ts'],
};
const idleSeconds = 10;

interface Measurement {
  firstAnswerS: number;
  peakMb: number;
  idleMb: number;
}

/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function statusMb(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

async function measure(args: string[], env: Record<string, string>): Promise<Measurement> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
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
      const ok = base && (await fetch(`${base}/api/v1/issues?limit=1`).then((r) => r.ok, () => false));
      if (ok) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const firstAnswerS = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    return { firstAnswerS, peakMb: statusMb(child.pid!, 'VmHWM'), idleMb: statusMb(child.pid!, 'VmRSS') };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
const rows: string[] = [];
for (const [runner, args] of Object.entries(runners)) {
  const dataDir = await mkdtemp(join(tmpdir(), 'secwire-startup-'));
  const embedded = { DATA_DIR: dataDir, DATABASE_URL: '', SEED_SAMPLE_DATA: 'true' };
  const fresh = await measure(args, embedded);
  const restart = await measure(args, embedded);
  await rm(dataDir, { recursive: true, force: true });
  const postgres = await emptyPostgres();
  const onPostgres = await measure(args, { DATABASE_URL: postgres.url, SEED_SAMPLE_DATA: 'true' }).finally(() => postgres.drop());
  for (const [database, m] of [['PGlite, fresh (migrate + seed)', fresh], ['PGlite, restart', restart], ['PostgreSQL, fresh (migrate + seed)', onPostgres]] as const) {
    const row = `| ${runner} | ${database} | ${m.firstAnswerS.toFixed(2)} | ${m.peakMb.toFixed(0)} | ${m.idleMb.toFixed(0)} |`;
    console.log(row);
    rows.push(row);
  }
}

const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
await writeReadmeSection(
  'startup',
  `<!-- startup:begin -->
## Start-up time and memory (\`npm run bench -- startup\`)

Measured ${when} UTC on this machine (2 shared cores, load average ${loadavg()[0]!.toFixed(1)} at the end; compare
rows, not absolute figures). Each row is a new server process with the sample data; "first answer" is
spawn to the first 200 of \`GET /api/v1/issues?limit=1\`, "peak" the process's VmHWM by then,
"idle" its VmRSS ${idleSeconds} s later. \`compiled\` is what \`npm start\` runs (esbuild output in dist/),
\`tsx\` is the same source through the tsx loader.

What is left of the embedded peak is V8's optimising compiler working through PostgreSQL's Wasm
once queries run: under \`node --liftoff-only\` the same restart peaks at about 280 MB instead of
about 820 MB, with list queries 10 to 30% slower (measured by hand, 300 requests each way). That
flag is process-wide, and would also slow Prisma's query compiler on PostgreSQL, so it is not set;
fresh starts no longer run initdb (the cluster comes from \`npm install\`) and restarts skip the
migration engine when nothing is pending.

| runner | database | first answer s | peak RSS MB | idle RSS MB |
|---|---|---|---|---|
${rows.join('\n')}
<!-- startup:end -->`,
);
