// Opens the configured database and brings it to the current migration.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openDatabase, type Database, type DatabaseTarget } from './client.js';
import { migrate, migrateInChild } from './migrator.js';

/** The configured database: PostgreSQL at DATABASE_URL, else the embedded one in DATA_DIR. */
export function configuredTarget(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir };
}

/**
 * `seeded`: a new embedded data directory may start from the install-time cluster that holds the
 * sample data (the server asks for it when it would seed; the CLI never does).
 */
export async function openConfiguredDatabase(config: Config, log: Logger, { seeded = false } = {}): Promise<Database> {
  const target = configuredTarget(config);
  const db = await openDatabase(target.kind === 'pglite' ? { ...target, seeded } : target);
  // The embedded database is private to this process, so it is always migrated.
  if (config.migrateOnStart || db.kind === 'pglite') {
    // Another instance migrating holds the lock until it is done: say why start-up is waiting.
    const waiting = setTimeout(() => log.info('waiting for migrations (another instance may be applying them)', { database: db.kind }), 2000);
    try {
      // PostgreSQL's migrations run in a child process, so the schema engine leaves with it; the
      // embedded database can only be reached through this process's instance.
      const applied = await (target.kind === 'postgres' ? migrateInChild(db.adapterFactory, target) : migrate(db.adapterFactory));
      log.info('migrations checked', { database: db.kind, applied });
    } finally {
      clearTimeout(waiting);
    }
  }
  return db;
}
