// Instances started together used to wait 10 to 25 s on each other: the schema engine's session
// kept PostgreSQL's migration advisory lock after migrate() returned, until the pool dropped it.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/migrator.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from './helpers/database.js';

describe.skipIf(!testDatabaseUrl)('migration lock on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.close());

  const advisoryLocks = async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  };

  it('is released as soon as migrate() returns, so the next instance does not wait', async () => {
    const factory = new PrismaPg({ connectionString: db.url });
    expect(await migrate(factory, { releaseConnections: true })).toEqual([]);
    expect(await advisoryLocks()).toBe(0);
    // And a second instance migrates at once against the same database.
    expect(await migrate(new PrismaPg({ connectionString: db.url }), { releaseConnections: true })).toEqual([]);
    expect(await advisoryLocks()).toBe(0);
  });

  it('was held on by the engine when its connections were left open (the old behaviour)', async () => {
    const factory = new PrismaPg({ connectionString: db.url, idleTimeoutMillis: 60_000 });
    await migrate(factory);
    expect(await advisoryLocks()).toBeGreaterThan(0);
  });
});
