// A database that hangs rather than refuses: every statement on the app's tables waits until the
// returned function is called (a lost network, a full pool, a long lock all look like this).
import pg from 'pg';
import type { TestApp } from './app.js';

export async function hangDatabase(t: Pick<TestApp, 'db'>): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: Promise<unknown>;
  await new Promise<void>((taken) => {
    if (t.db.pglite) {
      // PGlite has one connection: an open transaction holds every other statement.
      held = t.db.pglite.transaction(async () => (taken(), await released));
    } else {
      const client = new pg.Client({ connectionString: t.db.url });
      held = (async () => {
        await client.connect();
        await client.query('BEGIN; LOCK TABLE "DataVersion", "_prisma_migrations", "Issue" IN ACCESS EXCLUSIVE MODE');
        taken();
        await released;
        await client.query('ROLLBACK');
        await client.end();
      })();
    }
  });
  return async () => {
    release();
    await held;
  };
}
