// A new embedded database starts from the migrated, empty cluster `npm install` made
// (scripts/pglite-template.ts) rather than running initdb and the migration engine in this process.
// The tarball is unpacked onto disk before PGlite starts, so PGlite opens it as it opens any
// existing cluster: handing it the tarball instead (loadDataDir) unpacked it inside the Wasm
// filesystem and cost about 100 MB more peak memory (bench/README.md, start-up).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extract } from 'tar';

export const templatePath = fileURLToPath(new URL('../../node_modules/.cache/secwire/pglite-cluster.tar.gz', import.meta.url));

/** The marker PGlite checks for an existing cluster: unpacked last, so a cut-short unpack is redone. */
const marker = 'PG_VERSION';

/** Unpacks the install-time cluster into a data directory that holds none yet (nothing without a template). */
export async function unpackClusterTemplate(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, marker)) || !existsSync(templatePath)) return;
  await mkdir(dataDir, { recursive: true });
  // PGlite's tarball names files from the cluster root (/base/1/...); tar strips the leading slash.
  await extract({ file: templatePath, cwd: dataDir, filter: (path) => path.replace(/^\//, '') !== marker });
  await extract({ file: templatePath, cwd: dataDir, filter: (path) => path.replace(/^\//, '') === marker });
}
