// What `npm install` prepares once for every process of this checkout (postinstall): the embedded
// database's cluster templates (db/pglite-template.ts) and the text items' trained model
// (ingest/classifier/item-cache.ts). Each is kept under a key of the files it was made from, so a
// changed file never meets a stale copy.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

export const installCacheDir = join(root, 'node_modules', '.cache', 'secwire');

/**
 * A hash of every file under `dirs` (paths from the checkout's root), names and contents; undefined
 * when one is missing (a build shipped without its sources cannot prove what it was made from).
 */
export function sourceTreeHash(dirs: string[]): string | undefined {
  const hash = createHash('sha256');
  for (const dir of dirs) {
    if (!existsSync(join(root, dir))) return undefined;
    const files = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .map((file) => join(dir, file))
      .filter((file) => statSync(join(root, file)).isFile())
      .sort();
    for (const file of files) {
      const contents = readFileSync(join(root, file));
      hash.update(`${file}\0${contents.length}\0`).update(contents);
    }
  }
  return hash.digest('hex');
}
