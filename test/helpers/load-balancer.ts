// HAProxy and nginx from Debian's packages in front of server processes, configured exactly as
// docs/operations.md shows them: the page's `haproxy` and `nginx` blocks are read, and only their
// addresses and file paths are changed, so the documentation and what the tests run cannot drift.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const haproxyPath = '/usr/sbin/haproxy';
export const nginxPath = '/usr/sbin/nginx';
export const balancersInstalled = existsSync(haproxyPath) && existsSync(nginxPath);

const operationsPage = new URL('../../docs/operations.md', import.meta.url);

/** The fenced block of docs/operations.md in this language (`haproxy`, `nginx`). */
export async function documentedConfig(language: string): Promise<string> {
  const page = await readFile(operationsPage, 'utf8');
  const block = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(page);
  if (!block) throw new Error(`docs/operations.md has no \`\`\`${language} block`);
  return block[1]!;
}

/** A port nothing listens on now (for a process that must come back on the same one). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServerState {
  name: string;
  /** UP, DOWN, DRAIN, MAINT, or a transition such as "UP 1/2". */
  status: string;
  /** The last check's result, such as L7OK or L4CON. */
  check: string;
  /** Requests in progress on it now. */
  sessions: number;
  /** Requests it was given so far. */
  total: number;
}

export interface Balancer {
  /** http://127.0.0.1:<port> */
  base: string;
  /** One runtime API command's answer. */
  command(line: string): Promise<string>;
  servers(): Promise<ServerState[]>;
  /** Resolves once `check` holds for the backend's servers (polled). */
  waitForServers(check: (servers: ServerState[]) => boolean, timeoutMs?: number): Promise<ServerState[]>;
  /** Everything HAProxy wrote (its log lines go to stdout). */
  output(): string;
  stop(): Promise<void>;
}

/** The documented block with its servers at `ports` on 127.0.0.1, in the page's order. */
function withServers(documented: string, ports: number[]): string {
  let index = 0;
  const config = documented.replace(/^(\s*server\s+(?:[A-Za-z][\w-]*\s+)?)\S+:\d+/gm, (_all, head: string) => `${head}127.0.0.1:${ports[index++]}`);
  if (index !== ports.length) throw new Error(`the documented configuration has ${index} servers, not ${ports.length}`);
  return config;
}

/** Runs `args` until stop(), collecting what it writes. */
function run(command: string, args: string[]) {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Starts HAProxy on a free port with the documented configuration, its servers at `ports` on
 * 127.0.0.1 in the page's order (the page's names are kept).
 */
export async function startBalancer(ports: number[]): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'secwire-haproxy-'));
  const socket = join(dir, 'admin.sock');
  const port = await freePort();
  const config = withServers(await documentedConfig('haproxy'), ports)
    .replace(/stats socket \S+/, `stats socket ${socket}`)
    .replace(/^(\s*bind\s+)\S+/m, `$1127.0.0.1:${port}`);
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  // -db: stay in the foreground, so the test owns the process.
  const { child, output, stop } = run(haproxyPath, ['-db', '-f', file]);

  function command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const client = connect(socket);
      let answer = '';
      client.setEncoding('utf8');
      client.on('data', (chunk: string) => (answer += chunk));
      client.on('end', () => resolve(answer));
      client.on('error', reject);
      client.end(`${line}\n`);
    });
  }

  async function servers(): Promise<ServerState[]> {
    const [header = '', ...rows] = (await command('show stat')).trim().split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    return rows
      .map((row) => row.split(','))
      .filter((cells) => cells[at('pxname')] === 'secwire' && !['FRONTEND', 'BACKEND'].includes(cells[at('svname')]!))
      .map((cells) => ({
        name: cells[at('svname')]!,
        status: cells[at('status')]!,
        check: cells[at('check_status')]!,
        sessions: Number(cells[at('scur')]),
        total: Number(cells[at('stot')]),
      }));
  }

  async function waitForServers(check: (servers: ServerState[]) => boolean, timeoutMs = 20_000): Promise<ServerState[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = await servers().catch(() => []);
      if (now.length && check(now)) return now;
      if (Date.now() > deadline) throw new Error(`HAProxy's servers never got there: ${JSON.stringify(now)}\n${output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // Up once its runtime API answers.
  const deadline = Date.now() + 10_000;
  while (
    !(await servers().then(
      (s) => s.length > 0,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`HAProxy did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base: `http://127.0.0.1:${port}`,
    command,
    servers,
    waitForServers,
    output,
    async stop() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts nginx on a free port with the documented `upstream` and `server` blocks (which a Debian
 * install includes inside its `http` block), its servers at `ports` on 127.0.0.1.
 */
export async function startNginx(ports: number[]): Promise<{ base: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'secwire-nginx-'));
  // Its workers run as nobody and keep their temporary files here.
  await chmod(dir, 0o777);
  const port = await freePort();
  const site = withServers(await documentedConfig('nginx'), ports).replace(/^(\s*listen\s+)\d+;/m, `$1127.0.0.1:${port};`);
  const file = join(dir, 'nginx.conf');
  await writeFile(file, `daemon off;\npid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\naccess_log off;\n${site}}\n`);
  const nginx = run(nginxPath, ['-p', dir, '-c', file]);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (
    !(await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (nginx.child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start:\n${nginx.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    async stop() {
      await nginx.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
