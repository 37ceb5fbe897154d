// Compiles src/ to dist/ for `npm start` and `npm run cli`: serving plain JavaScript spares every
// start the tsx loader's transpiling and its memory. esbuild transpiles file by file (no bundling,
// no type check: `npm run typecheck` does that) in well under a second.
//
// Builds never disturb a running server or each other: each goes to a directory of its own named
// by a hash of its inputs (dist.<hash>, beside src/ at the same depth, so the relative URLs to
// data/, prisma/ and package.json resolve the same from either), and dist is a symlink switched
// by rename(2). Node loads modules by their real path, so a server started from an earlier build
// keeps importing from it; two builds at once each finish their own directory. When nothing in
// src/ changed, this only checks the hash.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => statSync(join(root, 'src', file)).isFile())
  .sort();

const hash = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(join(root, 'src', file)));
const name = `dist.${hash.digest('hex').slice(0, 16)}`;
const target = join(root, name);

if (!existsSync(join(target, '.built'))) {
  const scratch = `${target}.tmp-${process.pid}`;
  const entryPoints = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')).map((file) => join(root, 'src', file));
  await build({
    entryPoints,
    outdir: scratch,
    outbase: join(root, 'src'),
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: true,
    // Stack traces need only the mappings; the TypeScript text in each map was kept in the heap of
    // every process for nothing.
    sourcesContent: false,
    logLevel: 'warning',
  });
  writeFileSync(join(scratch, '.built'), '');
  try {
    renameSync(scratch, target);
  } catch {
    // Another build of the same inputs finished first: its directory is the same as ours.
    rmSync(scratch, { recursive: true, force: true });
  }
}

const link = join(root, 'dist');
const current = lstatSync(link, { throwIfNoEntry: false });
if (!current?.isSymbolicLink() || readlinkSync(link) !== name) {
  // A dist/ directory from before builds were kept apart is replaced once.
  if (current && !current.isSymbolicLink()) rmSync(link, { recursive: true, force: true });
  const next = `${link}.link-${process.pid}`;
  symlinkSync(name, next);
  renameSync(next, link);
}

// Earlier builds are removed once two newer ones exist and they are an hour old: a server started
// from one keeps it for that long, and a build in progress (a .tmp- directory) is not touched.
const hour = 3_600_000;
const builds = readdirSync(root)
  .filter((entry) => /^dist\.[0-9a-f]{16}$/.test(entry) && entry !== name)
  .map((entry) => ({ entry, mtime: statSync(join(root, entry)).mtimeMs }))
  .sort((a, b) => b.mtime - a.mtime);
for (const { entry, mtime } of builds.slice(2)) {
  if (Date.now() - mtime > hour) rmSync(join(root, entry), { recursive: true, force: true });
}
