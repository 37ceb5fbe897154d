// One sync per source across every instance, without holding a database connection for it. A
// sync takes the source's lease row (SourceLease) in one statement, renews it in one statement
// now and then while it downloads and stores, and deletes it when done. Between those statements
// it holds nothing: a download of minutes never keeps a pooled connection, let alone an open
// transaction. An instance that dies mid-sync leaves a lease that expires, and the next sync of
// that source, anywhere, takes it over.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';

/** How long a lease lasts unrenewed: how long a source stays held after its instance died. */
export const leaseSeconds = 60;
/** Renewed this often: a renewal may fail (or be late) twice before the lease runs out. */
const renewEveryMs = (leaseSeconds * 1000) / 4;

/**
 * Takes the lease on `name`, or says another holder has it (false). An expired lease is taken
 * over. The database's clock decides expiry, so instances' clocks need not agree.
 */
async function takeLease(prisma: PrismaClient, name: string, owner: string): Promise<boolean> {
  const rows = await prisma.$queryRaw<{ owner: string }[]>`
    INSERT INTO "SourceLease" ("name", "owner", "expiresAt")
    VALUES (${name}, ${owner}, now() + make_interval(secs => ${leaseSeconds}))
    ON CONFLICT ("name") DO UPDATE SET "owner" = excluded."owner", "expiresAt" = excluded."expiresAt"
    WHERE "SourceLease"."expiresAt" < now()
    RETURNING "owner"`;
  return rows[0]?.owner === owner;
}

/** Sources being synced through each database handle: the lease row covers other instances, this covers this one. */
const running = new WeakMap<Database, Set<string>>();

/**
 * Runs `fn` while holding the source's lease; undefined when another sync (here or in another
 * instance) holds it. `fn` runs whatever happens to a renewal: a renewal that fails is logged, and
 * at worst another instance takes an expired lease and syncs the same source too, which stores
 * the same records (each store is idempotent) rather than losing any. The embedded database
 * belongs to one process (its data directory is locked), so there the process's own set suffices,
 * and a process killed mid-sync leaves no lease behind to wait for.
 */
export async function withSourceLease<T>(db: Database, log: Logger, name: string, fn: () => Promise<T>): Promise<T | undefined> {
  const mine = running.get(db) ?? new Set<string>();
  running.set(db, mine);
  if (mine.has(name)) return undefined;
  mine.add(name);
  try {
    if (db.kind !== 'postgres') return await fn();
    const { prisma } = db;
    const owner = randomUUID();
    if (!(await takeLease(prisma, name, owner))) return undefined;
    const renew = setInterval(() => {
      prisma.$executeRaw`
        UPDATE "SourceLease" SET "expiresAt" = now() + make_interval(secs => ${leaseSeconds}) WHERE "name" = ${name} AND "owner" = ${owner}`.then(
        (updated) => {
          if (updated === 0) log.warn('source lease lost: another instance may sync this source too', { source: name });
        },
        () => log.warn('source lease not renewed (database unavailable)', { source: name }),
      );
    }, renewEveryMs);
    renew.unref();
    try {
      return await fn();
    } finally {
      clearInterval(renew);
      await prisma.$executeRaw`DELETE FROM "SourceLease" WHERE "name" = ${name} AND "owner" = ${owner}`.catch(() =>
        log.warn('source lease not released: it expires by itself', { source: name, inSeconds: leaseSeconds }),
      );
    }
  } finally {
    mine.delete(name);
  }
}
