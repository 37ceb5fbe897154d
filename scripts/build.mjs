// Compiles src/ to dist/ for `npm start` and `npm run cli`: serving plain JavaScript spares every
// start the tsx loader's transpiling and its memory. esbuild transpiles file by file (no bundling,
// no type check: `npm run typecheck` does that) in well under a second, so `npm start` can run it
// each time. dist/ sits beside src/ at the same depth, so the relative URLs to data/, prisma/ and
// package.json resolve the same from either.
// --when-stale (the CLI's precli) builds only when something in src/ (or this script) is newer
// than the last build: an operator's command started beside a running server does not remove and
// rewrite the files that server may still import.
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' });
const stamp = join(root, 'dist', '.built');

/** Whether dist/ was built after every file and directory in src/ last changed (a removed file changes its directory). */
function upToDate() {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  const sources = [fileURLToPath(import.meta.url), join(root, 'src'), ...files.map((file) => join(root, 'src', file))];
  return sources.every((path) => statSync(path).mtimeMs < built);
}

if (!(process.argv.includes('--when-stale') && upToDate())) {
  const entryPoints = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')).map((file) => join(root, 'src', file));
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: join(root, 'dist'),
    outbase: join(root, 'src'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Node 20.10+ reads `with { type: 'json' }`; esbuild would otherwise drop it for a node20 target.
    supported: { 'import-attributes': true },
    sourcemap: true,
    // Stack traces need only the mappings; the TypeScript text in each map was kept in the heap of
    // every process for nothing.
    sourcesContent: false,
    logLevel: 'warning',
  });
  writeFileSync(stamp, '');
}
