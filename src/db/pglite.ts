// The embedded database. Loaded only when no DATABASE_URL is set: under tsx, importing PGlite
// costs a PostgreSQL deployment about 50 MB of RSS for nothing.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import lockfile from 'proper-lockfile';
import { PrismaClient } from '../generated/prisma/client.js';
import { DataDirInUseError, type Database } from './client.js';
import { withFullTextSearch } from './full-text-search.js';
import { clusterTemplate } from './pglite-template.js';

// PostgreSQL's default 128 MB of shared buffers lives in the Wasm heap, which never shrinks: it was
// most of the embedded server's memory. 32 MB holds the sample many times over (bench/README.md,
// start-up section, has the figures).
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/** A PGlite (in memory without a dataDir) with the extensions our migrations use (also the diff's shadow DB). */
export function newPGlite(dataDir?: string, loadDataDir?: Blob): PGlite {
  return new PGlite({ dataDir, loadDataDir, extensions: { pg_trgm }, startParams });
}

/**
 * PGlite's adapter opens shadow databases without extensions, so CREATE EXTENSION pg_trgm would
 * fail there; ours hands out shadow databases that have it.
 */
function pgliteFactory(client: PGlite): SqlMigrationAwareDriverAdapterFactory {
  const main = new PrismaPGlite(client);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    connectToShadowDb: () => new PrismaPGlite(newPGlite()).connect(),
  } as SqlMigrationAwareDriverAdapterFactory;
}

// Who holds a lock: pid and process start time, so a restarted container's pid 1 is not taken
// for its previous life.
const holder = `${process.pid}:${Math.round(performance.timeOrigin)}`;

/** Whether the process recorded as the holder is still running (no record counts as running). */
function holderRunning(holderPath: string): boolean {
  let pid: number;
  let recorded: string;
  try {
    recorded = readFileSync(holderPath, 'utf8');
    pid = Number(recorded.split(':')[0]);
  } catch {
    return true; // just taken, not yet recorded
  }
  if (pid === process.pid) return recorded === holder;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>.lock` (a directory, proper-lockfile's atomic mkdir) for as long as the database
 * is open, and records the holder beside it in `<dataDir>.lock-holder`. The lock is refreshed
 * every 5 s and expires 30 s after its holder stops refreshing it; a holder that is no longer
 * running (killed) gives it up at once, so a restart after SIGKILL does not wait.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = `${dataDir}.lock`;
  const holderPath = `${dataDir}.lock-holder`;
  const options = {
    lockfilePath: lockPath,
    stale: 30_000,
    update: 5_000,
    onCompromised: (err: Error) => console.error(`secwire: lost the lock on DATA_DIR ${dataDir}: ${err.message}`),
  };
  const take = async () => {
    try {
      return await lockfile.lock(dataDir, options);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirInUseError(dataDir);
      throw err;
    }
  };
  let release: () => Promise<void>;
  try {
    release = await take();
  } catch (err) {
    if (!(err instanceof DataDirInUseError) || holderRunning(holderPath)) throw err;
    // The record first: a third process starting now then sees no record and backs off.
    await rm(holderPath, { force: true });
    await rm(lockPath, { recursive: true, force: true });
    release = await take();
  }
  await writeFile(holderPath, holder);
  return async () => {
    await rm(holderPath, { force: true });
    await release();
  };
}

export async function openPGlite(dataDir?: string, loadDataDir?: Blob): Promise<Database> {
  const unlock = dataDir ? await lockDataDir(dataDir) : undefined;
  const pglite = newPGlite(dataDir, loadDataDir ?? (dataDir ? clusterTemplate(dataDir) : undefined));
  const adapterFactory = pgliteFactory(pglite);
  const prisma = new PrismaClient({ adapter: withFullTextSearch(adapterFactory) });
  return {
    prisma,
    adapterFactory,
    kind: 'pglite',
    pglite,
    close: async () => {
      // A query still running (a /ready probe that gave up waiting, say) would make close() hang
      // for ever: queue behind it first (PGlite runs one query at a time).
      await pglite.query('SELECT 1').catch(() => undefined);
      await prisma.$disconnect();
      await pglite.close();
      await unlock?.();
    },
  };
}
