// The process an operator runs: `npm start` (bin/secwire) in a checkout of its own, as a
// supervisor or a shell would start it. Two starts at once both build and serve; SIGTERM to the
// pid `npm start` started stops the server itself (its output pipe closes only when every process
// holding it has exited, so an orphaned server would hold this test until it fails) and removes
// its exports' build directory; a database
// that cannot be reached ends start-up with one line and a non-zero exit code; and a production
// install (`npm ci --omit=dev`, offline from npm's cache) starts and answers on the Node it brings.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { launcher } from '../helpers/npm-script.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'secwire-process-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A checkout of the project without dist/ (what a start must build), sharing this one's node_modules. */
function checkout(name: string): string {
  const dir = join(scratch, name);
  for (const entry of ['package.json', 'bin', 'scripts', 'src', 'prisma', 'data']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `npm start` in `dir`; `child.pid` is npm's. */
const npmStart = (dir: string, env: Record<string, string>) =>
  startServerProcess({ LOG_LEVEL: 'info', SEED_SAMPLE_DATA: 'false', DATA_DIR: join(dir, '.data'), ...env }, ['start', '--silent'], 'npm', dir);

/** SIGTERM to npm's pid; resolves once the server's output has closed, with npm's exit code and the server's log. */
async function terminate(server: ServerProcess): Promise<{ code: number | null; closed: true }> {
  const closed = new Promise<true>((resolve) => server.child.stdout!.once('close', () => resolve(true)));
  const code = await server.stop();
  return { code, closed: await closed };
}

describe('the process an operator runs', () => {
  it('two `npm start`s from one checkout both build and serve, and SIGTERM to the npm pid stops each server, build directory removed', {
    timeout: 180_000,
  }, async () => {
    const dir = checkout('concurrent');
    // Each server's temporary directory, where it builds the exports.
    const tmp = [join(dir, 'tmp-a'), join(dir, 'tmp-b')];
    for (const t of tmp) mkdirSync(t);
    const builds = () => tmp.flatMap((t) => readdirSync(t).filter((name) => name.startsWith('secwire-exports-')));
    const servers = await Promise.all([
      npmStart(dir, { DATA_DIR: join(dir, 'a'), TMPDIR: tmp[0]! }),
      npmStart(dir, { DATA_DIR: join(dir, 'b'), TMPDIR: tmp[1]! }),
    ]);
    for (const server of servers) {
      const res = await fetch(`${server.base}/api/v1/stats`);
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('data');
      const exported = await fetch(`${server.base}/api/issues/export`);
      expect(exported.status).toBe(200);
      await exported.arrayBuffer();
    }
    expect(builds()).toHaveLength(2);
    for (const server of servers) {
      const { code, closed } = await terminate(server);
      expect(closed).toBe(true);
      expect(code).toBe(0);
      expect(server.lines().some((line) => line.msg === 'shutting down' && (line as { signal?: string }).signal === 'SIGTERM')).toBe(true);
      await expect(fetch(`${server.base}/health`)).rejects.toThrow();
    }
    expect(builds()).toEqual([]);
  });

  it('a database it cannot reach ends start-up with one line on stderr and exit code 1', async () => {
    // Port 1 of the loopback address: nothing listens there, the connection is refused at once.
    const started = await promisify(execFile)(launcher, [], {
      env: { ...process.env, PORT: '0', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/secwire', LOG_LEVEL: 'info' },
    }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(started.code).toBe(1);
    expect(started.stderr).toBe('secwire: cannot start: cannot reach PostgreSQL at 127.0.0.1:1 (DATABASE_URL); is it running?\n');
    expect(started.stdout).toBe('');
  });

  it.skipIf(!process.env.CI)('`npm ci --omit=dev` then `npm start` answers, on the Node the install brings', { timeout: 900_000 }, async () => {
    const dir = join(scratch, 'production');
    for (const entry of ['package.json', 'package-lock.json', 'bin', 'scripts', 'src', 'prisma', 'data']) {
      cpSync(join(root, entry), join(dir, entry), { recursive: true, filter: (path) => !path.includes('/src/generated') });
    }
    // Offline: from npm's cache, which the CI's own `npm ci` filled (no test leaves the machine).
    const install = await promisify(execFile)('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: dir, timeout: 840_000 });
    // Nothing to act on: the only warnings are the dependencies' Node engines, checked against the
    // Node npm runs on rather than the Node 24 they run on (README.md says so).
    const warnings = `${install.stdout}\n${install.stderr}`.split('\n').filter((line) => /^npm warn/i.test(line));
    expect(warnings.filter((line) => !/^npm warn EBADENGINE /.test(line))).toEqual([]);
    const server = await npmStart(dir, { SEED_SAMPLE_DATA: 'true' });
    try {
      const res = await fetch(`${server.base}/api/v1/issues?limit=1`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      await terminate(server);
    }
  });
});
