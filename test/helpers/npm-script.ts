// bin/secwire, what `npm start` and `npm run cli` run, so a test or bench starts the server or the
// CLI exactly as an operator does (malloc and V8 settings included).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const launcher = fileURLToPath(new URL('../../bin/secwire', import.meta.url));

/** node's flags bin/secwire gives the server on this database (read from the launcher, which decides them). */
export function serverNodeFlags(database: 'postgres' | 'pglite'): string[] {
  const lines = readFileSync(launcher, 'utf8')
    .split('\n')
    .filter((line) => line.trim().startsWith('exec "$node"') && line.includes('dist/server/start.js'));
  const line = database === 'postgres' ? lines[0]! : lines[1]!;
  return line.match(/ --[\w-]+(=\S+)?/g)!.map((flag) => flag.trim());
}
