// A new embedded database starts from a cluster `npm install` made (scripts/pglite-template.ts)
// rather than running initdb and the migration engine in this process. There are two: migrated and
// empty, and the same with the sample data seeded. Seeding runs every sample record through the
// classifier and writes the digests, about a third of a fresh start, so a server that seeds takes
// the seeded cluster, but only when it was built from exactly the code, data and migrations this
// process runs (its key); otherwise it takes the empty one and seeds at start as before.
// The tarball is unpacked onto disk before PGlite starts, so PGlite opens it as it opens any
// existing cluster: handing it the tarball instead (loadDataDir) unpacked it inside the Wasm
// filesystem and cost about 100 MB more peak memory (bench/README.md, start-up).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { extract } from 'tar';
import { installCacheDir, sourceTreeHash } from '../install-cache.js';

/** Where a set of cluster templates lives. */
export interface ClusterTemplates {
  empty: string;
  seeded: string;
  /** Written after the seeded tarball, removed before it is replaced: no manifest, no seeded start. */
  seededManifest: string;
}

/** The set `npm install` makes. */
export const installedTemplates = templatesIn(installCacheDir);

export function templatesIn(dir: string): ClusterTemplates {
  return {
    empty: join(dir, 'pglite-cluster.tar'),
    seeded: join(dir, 'pglite-cluster-seeded.tar'),
    seededManifest: join(dir, 'pglite-cluster-seeded.json'),
  };
}

/** What the install-time seed did, and what it was built from. */
export interface SeededTemplate {
  key: string;
  created: number;
  rejected: number;
  digests: number;
}

/**
 * A hash of everything a seed's outcome depends on: the code (src/, the classifier and the ingest
 * path with it), the data (data/, the sample and what the classifier reads) and the schema with its
 * migrations (prisma/). Broader than the classifier's version on purpose: a change to how a record
 * becomes a row must not be hidden by a stale template. Paid on a fresh directory only.
 */
export async function seedInputsKey(): Promise<string> {
  const key = sourceTreeHash(['src', 'data', 'prisma']);
  if (!key) throw new Error('no sources to key the seed by');
  return key;
}

/** The seeded template when its key matches this process's code and data. */
async function matchingSeededTemplate(templates: ClusterTemplates): Promise<SeededTemplate | undefined> {
  if (!existsSync(templates.seeded)) return undefined;
  const manifest = await readFile(templates.seededManifest, 'utf8').then(
    (text) => JSON.parse(text) as SeededTemplate,
    () => undefined,
  );
  if (!manifest) return undefined;
  // A running server without src/ (only dist/ shipped) cannot prove a match: it seeds.
  const key = await seedInputsKey().catch(() => undefined);
  return manifest.key === key ? manifest : undefined;
}

/** The marker PGlite checks for an existing cluster. */
const marker = 'PG_VERSION';
// PGlite's tarball names files from the cluster root (/base/1/...); tar strips the leading slash.
const isMarker = (path: string) => path.replace(/^\//, '') === marker;

/** How a data directory began: from which template, with the seed's summary for the seeded one. */
export type Unpacked = { template: 'seeded'; seed: SeededTemplate } | { template: 'empty' };

/**
 * Unpacks an install-time cluster into a data directory that holds none yet: the seeded one when
 * `seeded` is asked for and its key matches, else the empty one. Null when the directory already
 * had a cluster, or there is no template (PGlite then runs initdb).
 */
export async function unpackClusterTemplate(dataDir: string, { seeded = false, templates = installedTemplates } = {}): Promise<Unpacked | null> {
  if (existsSync(join(dataDir, marker))) return null;
  const seed = seeded ? await matchingSeededTemplate(templates) : undefined;
  const file = seed ? templates.seeded : templates.empty;
  if (!existsSync(file)) return null;
  // Unpacked beside the directory and renamed into place, so a start cut short never leaves half a
  // cluster, nor the files of one template under those of the other.
  const staging = `${dataDir}.unpacking`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  // Synchronously: node-tar's streaming mode took 2-4 times as long for the cluster's thousand small
  // files, and nothing else runs this early in a start.
  extract({ file, cwd: staging, sync: true });
  const placed = await rmdir(dataDir).then(
    () => rename(staging, dataDir).then(() => true),
    (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? rename(staging, dataDir).then(() => true) : false),
  );
  if (!placed) {
    // The directory holds other files (left by an older version's unpack that was cut short):
    // unpack over them as that version did, the marker last.
    await rm(staging, { recursive: true, force: true });
    extract({ file, cwd: dataDir, filter: (path) => !isMarker(path), sync: true });
    extract({ file, cwd: dataDir, filter: isMarker, sync: true });
  }
  return seed ? { template: 'seeded', seed } : { template: 'empty' };
}
