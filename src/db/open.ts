// Opens the configured database and brings it to the current migration.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openDatabase, type Database } from './client.js';
import { migrate } from './migrator.js';

export async function openConfiguredDatabase(config: Config, log: Logger): Promise<Database> {
  const db = config.databaseUrl
    ? await openDatabase({ kind: 'postgres', url: config.databaseUrl })
    : await openDatabase({ kind: 'pglite', dataDir: config.dataDir });
  // The embedded database is private to this process, so it is always migrated.
  if (config.migrateOnStart || db.kind === 'pglite') {
    const applied = await migrate(db.adapterFactory);
    log.info('migrations checked', { database: db.kind, applied });
  }
  return db;
}
