// A new embedded database starts from the migrated, empty cluster `npm install` made
// (scripts/pglite-template.ts) rather than running initdb and the migration engine in this process:
// a fresh start then peaks hundreds of MB lower and answers seconds sooner (bench/README.md, start-up).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const templatePath = fileURLToPath(new URL('../../node_modules/.cache/secwire/pglite-cluster.tar.gz', import.meta.url));

/** The install-time cluster for a data directory that holds none yet; nothing if it has one (or no template was made). */
export function clusterTemplate(dataDir: string): Blob | undefined {
  if (existsSync(join(dataDir, 'PG_VERSION')) || !existsSync(templatePath)) return undefined;
  return new Blob([readFileSync(templatePath)]);
}
