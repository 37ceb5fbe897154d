// node's arguments in `npm start` (the compiled server, built by scripts/build.mjs), read from
// package.json so a bench runs the server exactly as an operator does.
import { readFileSync } from 'node:fs';

export function npmStartArgs(): string[] {
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).slice(1);
}
