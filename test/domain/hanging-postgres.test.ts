// Ordinary reads while PostgreSQL hangs (issue 40, finding 5): the app reaches its database through
// a TCP proxy on 127.0.0.1 that, once stalled, keeps every connection open and forwards nothing.
// Reads that need the database answered 503 only after the pool's time-out, or never for a
// statement already sent; now each answers 503 with Retry-After within about a second, as
// GET /ready does, and the app serves again once the proxy forwards. A database that is alive but
// slow (a statement waiting on a lock) is still waited for. Runs on PostgreSQL (TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { DatabaseLiveness } from '../../src/db/liveness.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { hangDatabase } from '../helpers/hang.js';
import { createTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually } from '../helpers/webhooks.js';

describe.skipIf(!testDatabaseUrl)('a PostgreSQL that hangs', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  let searches = 0;
  /** A read no cached answer can serve: a new search each time, over REST or GraphQL. */
  const read = (i: number) =>
    i % 2
      ? t.fetch(`/api/v1/issues?limit=5&search=hang-${searches++}`)
      : t.fetch(`/graphql?query=${encodeURIComponent(`{ issues(search: "hang-${searches++}") { meta { total } } }`)}`);

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(db.url!);
    proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(db.url!);
    viaProxy.port = String(proxy.port);
    const proxied = await openDatabase({ kind: 'postgres', url: viaProxy.toString() });
    t = await createTestApp({}, { ...proxied, url: viaProxy.toString() });
    // The pool holds open connections, which is what a hang catches.
    for (const res of await Promise.all(Array.from({ length: 10 }, (_, i) => read(i)))) expect(res.status).toBe(200);
  });

  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await t?.db.close();
    await proxy?.close();
    await db?.close();
  });

  it('answers reads 503 with Retry-After within about a second, one at a time and 30 at once, and serves again once it forwards', async () => {
    proxy.stall();
    const timed = async (i: number) => {
      const started = performance.now();
      const res = await read(i);
      const body = await res.json();
      return { ms: performance.now() - started, status: res.status, retryAfter: res.headers.get('retry-after'), body };
    };
    const alone = await timed(1);
    const together = await Promise.all(Array.from({ length: 30 }, (_, i) => timed(i)));
    for (const answer of [alone, ...together]) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe('5');
      // The pool's connection time-out is 5 s; about a second is the liveness watch's.
      expect(answer.ms).toBeLessThan(2_000);
    }
    expect(alone.body).toEqual({ error: { message: 'The database is unavailable; try again in 5 seconds', status: 503 } });
    expect(together.find((a) => !('error' in a.body))?.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect((await t.fetch('/health')).status).toBe(200);

    proxy.restore();
    await eventually(async () => (await read(1)).status === 200);
    for (const res of await Promise.all(Array.from({ length: 10 }, (_, i) => read(i)))) expect(res.status).toBe(200);
  });

  it('still waits for a database that answers but is slow (a statement waiting on a lock)', async () => {
    const release = await hangDatabase({ db });
    const answer = read(1);
    // Released once the read has waited well past the watch's second.
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await eventually(async () => {
      const { rows } = await admin.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND now() - query_start > interval '1.5 seconds'`,
      );
      return rows.length > 0;
    });
    await admin.end();
    await release();
    expect((await answer).status).toBe(200);
  });

  it('gives up a probe connection that stays silent, even one that never finished starting up, for a new one', async () => {
    // A proxy stalled from the start: the probe's connection opens but its start-up is never answered.
    const target = new URL(db.url!);
    const silent = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    silent.stall();
    const viaSilent = new URL(db.url!);
    viaSilent.port = String(silent.port);
    const liveness = new DatabaseLiveness({ connectionString: viaSilent.toString() }, { suspectAfterMs: 50, answerWithinMs: 50 });
    try {
      expect(await liveness.answers()).toBe(false);
      expect(silent.accepted()).toBe(1);
      // Asked again once the probe has been silent past its limit, the watch drops that connection
      // (its socket destroyed) and the next probe opens another.
      await eventually(async () => (await liveness.answers(), silent.accepted() >= 2), 20_000, 250);
    } finally {
      liveness.close();
      await silent.close();
    }
  });
});
