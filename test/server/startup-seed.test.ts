// `npm start` on an empty data directory: the real server process, compiled as `npm start` compiles
// it, takes the sample data and its digests (from the cluster `npm install` seeded, or by seeding at
// start), serves them, and shuts down cleanly on SIGTERM; and both ways leave the same data.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { openConfiguredDatabase } from '../../src/db/open.js';
import { installedTemplates, seedInputsKey, type SeededTemplate } from '../../src/db/pglite-template.js';
import { createLogger } from '../../src/log.js';
import { createIssuePubSub } from '../../src/pubsub.js';
import { seedSampleData } from '../../src/server/seed.js';

// What `npm start` and `npm run cli` run: the compiled files (build-setup.ts built them, as prestart does).
const server = ['dist/server/start.js'];
const cliKeysList = ['dist/server/cli.js', 'keys', 'list'];
beforeAll(async () => {
  // What `npm install` runs (postinstall), so the seeded cluster matches the code under test; not
  // again when the one install left already does (a clean clone's CI, just installed).
  if (await seededClusterIsCurrent()) return;
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/pglite-template.ts'], { timeout: 120_000 });
}, 180_000);

/** The install-time seeded cluster was built from this code and data (its key) by this script. */
async function seededClusterIsCurrent(): Promise<boolean> {
  try {
    const { key } = JSON.parse(await readFile(installedTemplates.seededManifest, 'utf8')) as SeededTemplate;
    const builtAt = (await stat(installedTemplates.seeded)).mtimeMs;
    return key === (await seedInputsKey()) && builtAt > (await stat('scripts/pglite-template.ts')).mtimeMs;
  } catch {
    return false;
  }
}

let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The `sample data loaded` log line's fields. */
function seedLine(output: string): Record<string, unknown> | undefined {
  const line = output.split('\n').find((l) => l.includes('"msg":"sample data loaded"'));
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

it('an empty embedded data directory starts from the cluster npm install seeded, and serves it', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'secwire-seed-'));
  const child = spawn(process.execPath, server, {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_SAMPLE_DATA: 'true',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      WEBHOOK_API_KEY: '',
      SOURCES: '[]',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('"msg":"bearer keys"')) {
          clearInterval(timer);
          resolve();
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`server exited with ${code}: ${output}`));
      });
    });
    // Unpacked, not seeded again: the install-time seed's own figures.
    expect(seedLine(output)).toMatchObject({ created: 147, rejected: 0, from: 'the cluster npm install seeded' });
    // Says where bearer keys come from, so the README's webhook example is not a surprise 401.
    expect(output).toContain('no WEBHOOK_API_KEY set: issue a key with POST /api/v1/admin/keys');
    const base = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)![1]!;
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ stats { data { totalIssues totalDigests } } }' }),
    });
    const { data } = await res.json();
    expect(data.stats.data.totalIssues).toBe(146); // 147 sample records, one deliberately out of scope
    expect(data.stats.data.totalDigests).toBeGreaterThan(100);

    // PGlite serves one process: a second server or the CLI on the same DATA_DIR is refused.
    const second = await run(server, { PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^secwire: cannot start: DATA_DIR \S+ is in use by another secwire process/);
    const cli = await run(cliKeysList);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('is in use by another secwire process');
    expect((await fetch(`${base}/health`)).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  // A clean shutdown gives the directory back.
  const after = await run(cliKeysList);
  expect(after).toMatchObject({ code: 0, stdout: 'no keys\n' });

  async function run(args: string[], env: Record<string, string> = {}) {
    const options = { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SOURCES: '[]', ...env }, timeout: 90_000 };
    return promisify(execFile)(process.execPath, args, options).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  }
}, 300_000);

it('a SIGTERM during start-up lets the first seed finish, then stops cleanly', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'secwire-seed-stop-'));
  try {
    // The seed itself, not the install-time cluster: SEED_FROM_TEMPLATE=false.
    const child = spawn(process.execPath, server, {
      env: {
        ...process.env,
        DATA_DIR: dir,
        PORT: '0',
        HOST: '127.0.0.1',
        SEED_SAMPLE_DATA: 'true',
        SEED_FROM_TEMPLATE: 'false',
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        SOURCES: '[]',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));
    try {
      // Migrations are done and the seed is starting: the moment a cut would leave half the sample.
      while (!output.includes('"msg":"migrations checked"')) {
        if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}: ${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    const order = ['"msg":"stopping once start-up has finished"', '"msg":"sample data loaded"', '"msg":"shutting down"'].map((m) => output.indexOf(m));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(seedLine(output)).toEqual(expect.not.objectContaining({ from: expect.anything() }));
    // The whole sample is there, and the directory was given back.
    const db = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      expect(await db.prisma.issue.count({ where: { relevant: true, processed: true, withdrawn: false } })).toBe(146);
    } finally {
      await db.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 240_000);

it('the seeded cluster holds what seeding at start writes: issues, digests, events (relayed), data version, nothing else', async () => {
  // The server's own way of opening each (src/server/main.ts), without its schedules writing beside.
  const open = async (seeded: boolean) => {
    const dir = await mkdtemp(join(tmpdir(), 'secwire-seed-same-'));
    const db = await openConfiguredDatabase(testConfig({ dataDir: dir, databaseUrl: undefined }), createLogger('silent'), { seeded });
    return { dir, db };
  };
  // Everything but ids and the times of writing; events by kind and size.
  const contents = async (db: Database) => {
    const issues = await db.prisma.$queryRawUnsafe<{ row: unknown }[]>(
      `SELECT to_jsonb(i) - ARRAY['id', 'firstSeenAt', 'updatedAt', 'modifiedAt', 'announcedAt'] AS row FROM "Issue" i ORDER BY "naturalKey"`,
    );
    // A digest lists issues published at the same instant in the order of their (random) ids: lines are compared as a set.
    const digests = (await db.prisma.digest.findMany({ select: { date: true, content: true, issueCount: true }, orderBy: { date: 'asc' } })).map((d) => ({
      ...d,
      content: d.content.split('\n').sort(),
    }));
    const events = await db.prisma.$queryRawUnsafe<unknown[]>(
      `SELECT "kind", cardinality("issueIds") AS size, "relayedAt" IS NOT NULL AS relayed FROM "IssueEvent" ORDER BY "createdAt", size`,
    );
    const tables = await db.prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY 1`,
    );
    const counts: Record<string, number> = {};
    for (const { table_name } of tables)
      counts[table_name] = (await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table_name}"`))[0]!.n;
    return { issues, digests, events, counts, dataVersion: await db.prisma.dataVersion.findMany() };
  };
  const unpacked = await open(true);
  const seeded = await open(false);
  try {
    expect(unpacked.db.seededFromTemplate).toMatchObject({ created: 147, rejected: 0 });
    expect(seeded.db.seededFromTemplate).toBeUndefined();
    const { pubsub } = createIssuePubSub();
    expect(await seedSampleData({ prisma: seeded.db.prisma, pubsub, log: createLogger('silent'), db: seeded.db })).toMatchObject({ created: 147 });
    const fromTemplate = await contents(unpacked.db);
    expect(fromTemplate.issues).toHaveLength(147);
    expect(fromTemplate.events.length).toBeGreaterThan(0);
    expect(fromTemplate).toEqual(await contents(seeded.db));
  } finally {
    for (const { dir, db } of [unpacked, seeded]) {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}, 120_000);
