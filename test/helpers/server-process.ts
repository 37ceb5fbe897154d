// The real server (src/server/main.ts, compiled to dist/) in a child process, as `npm start` runs it, with
// its JSON log lines collected so a test can wait for them.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port>, once listening. */
  base: string;
  /** Every line written so far, parsed when it is JSON. */
  lines(): { level?: string; msg?: string; [field: string]: unknown }[];
  /** Resolves with the first log line (counting from `after`) that satisfies `match`; rejects if the process exits first. */
  waitForLog(match: (line: { level?: string; msg?: string }) => boolean, after?: number): Promise<number>;
  /** SIGTERM, then the exit code; throws if the server logged an unhandled rejection or exception. */
  stop(): Promise<number | null>;
}

/**
 * `args` are node's (by default the compiled server that build-setup.ts built); with `command`
 * bin/secwire (what `npm start` runs), they are the node flags it passes on; with `npm`, npm's.
 */
export async function startServerProcess(
  env: Record<string, string>,
  args = ['dist/server/main.js'],
  command = process.execPath,
  cwd?: string,
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SEED_SAMPLE_DATA: 'false', DATABASE_URL: '', REGISTRY_LOOKUP: 'false', SOURCES: '[]', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exitCode: number | null | undefined;
  const changed = new Set<() => void>();
  const notify = () => {
    for (const wake of changed) wake();
  };
  child.stdout!.on('data', (chunk) => ((output += chunk), notify()));
  child.stderr!.on('data', (chunk) => ((output += chunk), notify()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => (resolve(code), (exitCode = code), notify())));
  const lines = () =>
    output
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        try {
          return JSON.parse(line) as { level?: string; msg?: string };
        } catch {
          return { msg: line };
        }
      });
  async function waitForLog(match: (line: { level?: string; msg?: string }) => boolean, after = 0): Promise<number> {
    for (;;) {
      const index = lines().findIndex((line, i) => i >= after && match(line));
      if (index >= 0) return index;
      if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}:\n${output.slice(-4000)}`);
      await new Promise<void>((resolve) => {
        const wake = () => (changed.delete(wake), resolve());
        changed.add(wake);
      });
    }
  }
  try {
    const at = await waitForLog((l) => l.msg === 'secwire listening');
    const listening = lines()[at] as { url: string };
    return {
      child,
      base: listening.url,
      lines,
      waitForLog,
      async stop() {
        if (exitCode === undefined) child.kill('SIGTERM');
        const code = await exited;
        // In-process, vitest fails the run on an unhandled rejection; the server logs its own instead.
        const unhandled = lines().find((l) => l.msg === 'unhandled rejection' || l.msg === 'uncaught exception');
        if (unhandled) throw new Error(`the server logged an ${unhandled.msg}: ${JSON.stringify(unhandled)}`);
        return code;
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}
