// Builds dist/ for `npm start`: the server bundled and minified with the packages it uses, so a
// start reads a few files instead of about 2,000 modules, and V8 keeps (for lazy compilation) the
// source text of a bundle with only the code reachable from our entry points, in short names: a
// restarted server idled at about 122 MB instead of 125 to 132, with 37 MB of heap used instead of 43
// (bench/README.md, process memory). esbuild does it in a second or two (no type check:
// `npm run typecheck` does that), so `npm start` can run it each time.
//
// Entry points keep their place under dist/ (dist/start.js, dist/main.js, and the migration
// worker, which migrator.ts finds beside itself); shared code goes into chunks in dist/. Every
// source file's import.meta.url is rewritten to the URL its file would have in dist/ unbundled
// (dist/db/migrator.js), so relative URLs to data/, prisma/ and package.json resolve as they do
// from src/. Packages that find their own files (Wasm, data, native modules) relative to their
// modules stay outside the bundle and load from node_modules.
import { readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

/** @type {import('esbuild').Plugin} */
const unbundledMetaUrl = {
  name: 'unbundled-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!path.startsWith(src)) return { contents: text, loader: 'ts' };
      const place = relative(src, path).replace(/\.ts$/, '.js').split('\\').join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${place}`)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

await rm(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: ['start.ts', 'main.ts', 'db/migrate-worker.ts'].map((file) => join(src, file)),
  outdir: join(root, 'dist'),
  outbase: src,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  minify: true,
  // Names of classes and functions stay as written: packages read constructor.name (in messages
  // and type checks); about 3 MB of heap.
  keepNames: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Node 20.10+ reads `with { type: 'json' }`; esbuild would otherwise drop it for a node target.
  supported: { 'import-attributes': true },
  plugins: [unbundledMetaUrl],
  external: ['@electric-sql/pglite', '@electric-sql/pglite/*', '@prisma/*', 'pglite-prisma-adapter', 'prisma', 'pg', 'pg-*', 'cwe-sdk'],
  // CommonJS packages inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __secwireRequire } from 'node:module'; const require = __secwireRequire(import.meta.url);" },
  // Stack traces map to src/ (start.ts turns source maps on); the sources themselves stay on disk.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
