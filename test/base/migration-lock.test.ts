// Instances started together used to wait 10 to 25 s on each other: the schema engine's session
// kept PostgreSQL's migration advisory lock after migrate() returned, until the pool dropped it.
// Also the server's other start-up work on an empty PostgreSQL database: the sample seed.
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/db/migrator.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { startServerProcess } from '../helpers/server-process.js';

describe.skipIf(!testDatabaseUrl)('migration lock on PostgreSQL', () => {
  // Empty databases: on a migrated one migrate() returns before the engine starts (nothing pending).
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  const emptyDatabase = async () => {
    const name = `secwire_lock_${randomBytes(4).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    created.push(name);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${name}`;
    return url.toString();
  };
  afterAll(async () => {
    for (const name of created) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  const advisoryLocks = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
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

  // pg's Pool.end() resolves once it has asked each client to end, not once the sessions have
  // closed, so the lock goes a moment after migrate() returns: well inside this bound, where the
  // old behaviour held it until the pool's idle timeout (10 s and more).
  const lockReleased = (url: string) => vi.waitFor(async () => expect(await advisoryLocks(url)).toBe(0), { timeout: 3_000, interval: 50 });

  it('is released as soon as migrate() ends its sessions, so the next instance does not wait', async () => {
    const url = await emptyDatabase();
    expect((await migrate(new PrismaPg({ connectionString: url }), { releaseConnections: true })).length).toBeGreaterThan(0);
    await lockReleased(url);
    // And a second instance finds nothing to do at once against the same database.
    expect(await migrate(new PrismaPg({ connectionString: url }), { releaseConnections: true })).toEqual([]);
    await lockReleased(url);
  }, 120_000);

  it('was held on by the engine when its connections were left open (the old behaviour)', async () => {
    const url = await emptyDatabase();
    await migrate(new PrismaPg({ connectionString: url, idleTimeoutMillis: 60_000 }));
    expect(await advisoryLocks(url)).toBeGreaterThan(0);
  }, 120_000);

  it('is applied by the server at start-up (in a child process): it serves, holds no lock, and a restart applies nothing', async () => {
    const url = await emptyDatabase();
    const applied = async () => {
      const server = await startServerProcess({ DATABASE_URL: url, LOG_LEVEL: 'info' });
      try {
        const checked = server.lines().find((line) => line.msg === 'migrations checked') as { applied: string[] };
        expect((await fetch(`${server.base}/api/v1/issues`)).status).toBe(200);
        expect(await advisoryLocks(url)).toBe(0);
        return checked.applied;
      } finally {
        await server.stop();
      }
    };
    expect((await applied()).length).toBeGreaterThan(0);
    expect(await applied()).toEqual([]);
  }, 120_000);

  it('seeds an empty database at start-up (in a child process), whose events the server relays; a restart seeds nothing', async () => {
    const url = await emptyDatabase();
    const start = () => startServerProcess({ DATABASE_URL: url, LOG_LEVEL: 'info', SEED_SAMPLE_DATA: 'true' });
    const first = await start();
    try {
      expect(first.lines().some((line) => line.msg === 'sample data loaded')).toBe(true);
      const page = (await (await fetch(`${first.base}/api/v1/issues?limit=1`)).json()) as { meta: { total: number } };
      expect(page.meta.total).toBeGreaterThan(100);
      // The seed left its events to the server, which publishes them once it has subscribed.
      await first.waitForLog((line) => line.msg === 'issue events relayed');
    } finally {
      await first.stop();
    }
    const second = await start();
    try {
      expect(second.lines().some((line) => line.msg === 'sample data loaded')).toBe(false);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
