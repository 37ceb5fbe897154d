// A bench server in a child process of its own (so its CPU can be read from /proc), run with tsx;
// it prints `listening <port>` once it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ChildServer {
  child: ChildProcess;
  base: string;
}

export async function startChildServer(
  name: string,
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<ChildServer> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** User plus system CPU time of a process so far, in milliseconds (clock ticks are 10 ms on Linux). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
