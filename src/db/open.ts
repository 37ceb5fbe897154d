// Opens the configured database and brings it to the current migration, or says in one line why it
// cannot (start-up and the CLI print that line and exit non-zero).
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openDatabase, type Database, type DatabaseTarget } from './client.js';
import { DataDirInUseError } from './data-dir-lock.js';
import { migrate, migrationsPending } from './migrator.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** A database that cannot be used, with the one line an operator needs (no library wording). */
export class DatabaseOpenError extends Error {}

/** The configured database: PostgreSQL at DATABASE_URL, else the embedded one in DATA_DIR. */
export function configuredTarget(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir };
}

interface AdapterCause {
  kind?: string;
  db?: string;
  host?: string;
  port?: number;
  originalMessage?: string;
}

/** The driver adapter's description of a failed connection, wherever Prisma put it. */
function adapterCause(err: unknown): AdapterCause | undefined {
  const e = err as { meta?: { driverAdapterError?: { cause?: AdapterCause } }; cause?: unknown } | undefined;
  return e?.meta?.driverAdapterError?.cause ?? (e?.cause ? adapterCause(e.cause) : undefined);
}

/** Why PostgreSQL at `url` cannot be used, from the error of a first statement. */
function postgresProblem(err: unknown, url: string): string {
  const cause = adapterCause(err);
  const { hostname, port, pathname } = new URL(url);
  const where = `${hostname}:${port || 5432}`;
  switch (cause?.kind) {
    case 'DatabaseDoesNotExist':
      return `PostgreSQL database "${cause.db ?? decodeURIComponent(pathname.slice(1))}" does not exist on ${where} (DATABASE_URL); create it first`;
    case 'DatabaseNotReachable':
      return `cannot reach PostgreSQL at ${where} (DATABASE_URL); is it running?`;
    case 'DatabaseAccessDenied':
    case 'AuthenticationFailed':
      return `PostgreSQL at ${where} refused the login of DATABASE_URL${cause.originalMessage ? `: ${cause.originalMessage}` : ''}`;
  }
  if (isDatabaseUnavailable(err)) return `PostgreSQL at ${where} is not answering (DATABASE_URL)`;
  throw err;
}

/**
 * `seeded`: a new embedded data directory may start from the install-time cluster that holds the
 * sample data (the server asks for it when it would seed; the CLI never does).
 * Throws DatabaseOpenError when the database is missing, unreachable, refuses the login or is not
 * migrated while MIGRATE_ON_START is false.
 */
export async function openConfiguredDatabase(config: Config, log: Logger, { seeded = false } = {}): Promise<Database> {
  const target = configuredTarget(config);
  let db: Database;
  try {
    db = await openDatabase(target.kind === 'pglite' ? { ...target, seeded } : target);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw new DatabaseOpenError(err.message);
    throw err;
  }
  try {
    if (target.kind === 'postgres')
      await db.prisma.$queryRawUnsafe('SELECT 1').catch((err: unknown) => Promise.reject(new DatabaseOpenError(postgresProblem(err, target.url))));
    // The embedded database is private to this process, so it is always migrated.
    if (config.migrateOnStart || db.kind === 'pglite') {
      // Another instance migrating holds the lock until it is done: say why start-up is waiting.
      const waiting = setTimeout(() => log.info('waiting for migrations (another instance may be applying them)', { database: db.kind }), 2000);
      try {
        const applied = await migrate(db.adapterFactory, { releaseConnections: db.kind === 'postgres' });
        log.info('migrations checked', { database: db.kind, applied });
      } finally {
        clearTimeout(waiting);
      }
    } else if (await migrationsPending(db.adapterFactory)) {
      throw new DatabaseOpenError('the database has migrations to apply and MIGRATE_ON_START is false: run `npm run db:migrate` first');
    }
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}
