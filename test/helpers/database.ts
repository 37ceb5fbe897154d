// A fresh, migrated database per test file: in-memory PGlite by default, or a scratch database
// on the PostgreSQL server named by TEST_DATABASE_URL (dropped again when the file finishes).
// Both start as copies of the template that global-setup.ts migrated with the real migrator.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

export interface TestDatabase extends Database {
  /** postgres URL of this scratch database, when on PostgreSQL (for second instances). */
  url?: string;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!testDatabaseUrl) {
    const template = new Blob([await readFile(inject('testDatabaseTemplate'))]);
    return await openDatabase({ kind: 'pglite', loadDataDir: template });
  }
  const name = `secwire_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  try {
    // Two files copying the template at the same moment can collide ("source database is being
    // accessed by other users", SQLSTATE 55006): try again shortly.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('testDatabaseTemplate')}`);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: url.toString() });
  return {
    ...db,
    url: url.toString(),
    close: async () => {
      await db.close();
      const cleanup = new pg.Client({ connectionString: testDatabaseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
