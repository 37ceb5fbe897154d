// Compiles src/ to dist/ once, before any test file starts, as `npm run cli` does (precli): the
// CLI and server-process tests run the compiled files those scripts run, without paying the tsx
// loader's transpiling in every child process, and no file rebuilds dist/ while another runs it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export default async function setup() {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--when-stale']);
}
