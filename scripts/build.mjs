// Compiles src/ to dist/ for `npm start`: serving plain JavaScript spares every start the tsx
// loader's transpiling and its memory. esbuild transpiles file by file (no bundling, no type
// check: `npm run typecheck` does that) in well under a second, so `npm start` can run it each time.
// dist/ sits beside src/ at the same depth, so the relative URLs to data/, prisma/ and package.json
// resolve the same from either.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const entryPoints = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => join(root, 'src', file));

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
