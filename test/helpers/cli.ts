// The operator CLI as a real process, on a database of its own: the embedded one in a scratch
// directory, or a PostgreSQL scratch database when TEST_DATABASE_URL is set.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from './database.js';
import { launcher } from './npm-script.js';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment that points the CLI at a fresh database, and how to drop it again. */
export async function cliDatabase(dir: string): Promise<{ env: Record<string, string>; pg?: TestDatabase }> {
  if (!testDatabaseUrl) return { env: { DATA_DIR: join(dir, 'db'), DATABASE_URL: '' } };
  const pg = await createTestDatabase();
  return { env: { DATABASE_URL: pg.url! }, pg };
}

/** Runs `npm run cli -- <args>` (bin/secwire cli, without npm's own output; build-setup.ts built dist/) and answers its exit code and output. */
export function runCli(env: Record<string, string>, args: string[]): Promise<CliResult> {
  return run(launcher, ['cli', ...args], {
    env: { ...process.env, LOG_LEVEL: 'error', REGISTRY_LOOKUP: 'false', SOURCES: '[]', ...env },
    timeout: 120_000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

export interface CliScratch {
  /** A scratch directory of the test file's own. */
  dir: string;
  env: Record<string, string>;
  pg?: TestDatabase;
}

/** A scratch directory and database for the CLI, made before the file's tests and dropped after them. */
export function cliScratch(prefix: string): CliScratch {
  const scratch: CliScratch = { dir: '', env: {} };
  beforeAll(async () => {
    scratch.dir = await mkdtemp(join(tmpdir(), prefix));
    Object.assign(scratch, await cliDatabase(scratch.dir));
  });
  afterAll(async () => {
    await scratch.pg?.close();
    await rm(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}
