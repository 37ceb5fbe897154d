// node's arguments in one of package.json's scripts (`node <flags> <entry>`: the flags and the
// compiled entry), so a test or bench runs the server or the CLI exactly as an operator does.
import { readFileSync } from 'node:fs';

export function npmScriptArgs(name: 'start' | 'cli'): string[] {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  return scripts[name]!.split(/\s+/).slice(1);
}
