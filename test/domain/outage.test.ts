// Database outages on a real database: requests get 503 with Retry-After (REST envelope, GraphQL
// error with extensions.code SERVICE_UNAVAILABLE), /ready turns 503 even when the database hangs
// rather than refuses, service comes back with the database, and an admin ingest cut off mid-way
// says which records were committed. On PostgreSQL the outage is real (the scratch database stops
// accepting connections and its sessions are terminated); PGlite's is the database closed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_AFTER_SECONDS } from '../../src/db/unavailable.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { adminHeaders, adminKey, clonedAdvisories } from '../helpers/samples.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
});
// On PGlite the last test has closed the database already.
afterAll(async () => t?.close().catch(() => undefined));

/** Runs SQL as the server's superuser, outside the app's pool (PostgreSQL only). */
async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(sql).finally(() => admin.end());
}

const scratchName = () => new URL(t.db.url!).pathname.slice(1);

/** Polls until `check` holds: conditions, not fixed waits. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

async function expectUnavailable() {
  const rest = await t.fetch('/api/v1/issues');
  expect(rest.status).toBe(503);
  expect(rest.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(await rest.json()).toEqual({ error: { message: expect.stringMatching(/database is unavailable/i), status: 503 } });

  const gql = await t.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ issues { meta { total } } }' }),
  });
  expect(gql.status).toBe(503);
  expect(gql.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  const body = await gql.json();
  expect(body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
  expect(JSON.stringify(body)).not.toMatch(/57P01|55000|terminat|PGlite|prisma/i);

  const ready = await t.fetch('/ready');
  expect(ready.status).toBe(503);
}

describe('GET /ready', () => {
  it('turns 503 when the database hangs, within its own time-out', async () => {
    // A session holding an exclusive lock on the migrations table makes the readiness query wait.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: Promise<unknown>;
    const lockTaken = new Promise<void>((taken) => {
      if (t.db.pglite) {
        locked = t.db.pglite.transaction(async (tx) => {
          await tx.query('LOCK TABLE "_prisma_migrations" IN ACCESS EXCLUSIVE MODE');
          taken();
          await released;
        });
      } else {
        const client = new pg.Client({ connectionString: t.db.url });
        locked = (async () => {
          await client.connect();
          await client.query('BEGIN; LOCK TABLE "_prisma_migrations" IN ACCESS EXCLUSIVE MODE');
          taken();
          await released;
          await client.query('ROLLBACK');
          await client.end();
        })();
      }
    });
    await lockTaken;
    try {
      const res = await t.fetch('/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    } finally {
      release();
      await locked;
    }
    expect((await t.fetch('/ready')).status).toBe(200);
  });
});

describe('an admin ingest that fails mid-way', () => {
  it('answers 503 saying which records were committed, and a re-send completes it', async () => {
    // Index 700 is refused with the SQLSTATE of a server shutting down: the first chunk of 500 is
    // committed, the second (500 to 999) is not.
    const records = clonedAdvisories(1200, 'dead');
    const poison = records[700]!.id as string;
    await t.db.prisma.$executeRawUnsafe(`
      CREATE FUNCTION outage_test() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.source->>'id' = '${poison}' THEN RAISE EXCEPTION 'terminating connection' USING ERRCODE = '57P01'; END IF;
        RETURN NEW;
      END $$`);
    await t.db.prisma.$executeRawUnsafe('CREATE TRIGGER outage_test BEFORE INSERT ON "Issue" FOR EACH ROW EXECUTE FUNCTION outage_test()');
    let res: Response;
    try {
      res = await t.fetch('/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminHeaders },
        body: JSON.stringify(records),
      });
    } finally {
      await t.db.prisma.$executeRawUnsafe('DROP TRIGGER outage_test ON "Issue"');
      await t.db.prisma.$executeRawUnsafe('DROP FUNCTION outage_test()');
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    const { error } = await res.json();
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/Records before index 500 were committed \(500 stored\); records from index 500 on were not/);
    const [row] = await t.db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "Issue" WHERE source->>'id' LIKE 'GHSA-dead-%'`);
    expect(row?.n).toBe(500);

    const again = await t.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify(records),
    });
    expect(again.status).toBe(200);
    const { data } = await again.json();
    expect({ created: data.created, unchanged: data.unchanged }).toEqual({ created: 700, unchanged: 500 });
  });
});

describe('the database goes away', () => {
  // Last in the file: on PGlite the outage is the database closed for good.
  it('answers 503 with Retry-After on REST, GraphQL and /ready, and recovers with the database', async () => {
    expect((await t.fetch('/api/v1/issues')).status).toBe(200);
    if (t.db.pglite) {
      await t.db.pglite.close();
      await expectUnavailable();
      return;
    }
    await asAdmin(`ALTER DATABASE ${scratchName()} ALLOW_CONNECTIONS false`);
    await asAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${scratchName()}'`);
    try {
      await expectUnavailable();
    } finally {
      await asAdmin(`ALTER DATABASE ${scratchName()} ALLOW_CONNECTIONS true`);
    }
    await until(async () => (await t.fetch('/ready')).status === 200);
    expect((await t.fetch('/api/v1/issues')).status).toBe(200);
  });
});
