// The embedded database's data directory is private to one process: a second one would corrupt
// it. This lock (and its error, which main.ts reports without loading PGlite) keeps it so.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import lockfile from 'proper-lockfile';

/** Another process holds the data directory: PGlite serves one process, a second one would corrupt it. */
export class DataDirInUseError extends Error {
  constructor(dataDir: string) {
    super(`DATA_DIR ${dataDir} is in use by another secwire process; stop it first (with PostgreSQL, several processes can share a database)`);
  }
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
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
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
