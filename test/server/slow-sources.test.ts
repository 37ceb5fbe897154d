// A start on PostgreSQL with more slow sources than the pool has connections: each of twelve
// local HTTPS upstreams dribbles its answer out over seconds, as a large export does online. A
// sync holds no connection while it downloads (src/sources/lease.ts), so the start-up digest, the
// reads and every source get theirs: nothing times out waiting for a connection, and no
// connection sits idle in a transaction for longer than one write.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { testCertificate } from '../helpers/https-receiver.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const sources = 12;
/**
 * Pieces each answer is written in, one per tick of dribbleMs: each download lasts two seconds,
 * twice the longest idle transaction allowed below, so a sync holding one would show.
 */
const pieces = 20;
const dribbleMs = 100;

let dir: string | undefined;
let upstream: Server | undefined;
let db: TestDatabase | undefined;
let server: ServerProcess | undefined;
let watcher: pg.Client | undefined;
let watching = false;
let watch: Promise<void> | undefined;

afterAll(async () => {
  watching = false;
  await watch?.catch(() => {});
  await server?.stop();
  await watcher?.end();
  upstream?.closeAllConnections();
  upstream?.close();
  await db?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** An upstream that answers every path with `body`, a piece at a time. */
async function dribblingUpstream(body: Buffer): Promise<{ server: Server; url: (path: string) => string }> {
  const { key, cert } = testCertificate();
  const upstream = createServer({ key, cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/atom+xml', 'content-length': body.length });
    const size = Math.ceil(body.length / pieces);
    let sent = 0;
    const next = () => {
      if (res.destroyed) return;
      res.write(body.subarray(sent, sent + size));
      sent += size;
      if (sent >= body.length) res.end();
      else setTimeout(next, dribbleMs);
    };
    next();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  return { server: upstream, url: (path) => `https://127.0.0.1:${port}${path}` };
}

it.skipIf(!testDatabaseUrl)(
  'twelve slow sources on PostgreSQL starve nothing: no connection timeout, the digest is written, reads answer at once',
  async () => {
    db = await createTestDatabase();
    const feed = readFileSync(new URL('../fixtures/sources/arxiv-cs-cr.atom', import.meta.url));
    const slow = await dribblingUpstream(feed);
    upstream = slow.server;
    dir = await mkdtemp(join(tmpdir(), 'secwire-slow-'));
    const list = Array.from({ length: sources }, (_, n) => ({ name: `slow-${n}`, kind: 'feed', location: slow.url(`/feed-${n}.atom`), issueType: 'research' }));
    await writeFile(join(dir, 'sources.json'), JSON.stringify(list));
    await writeFile(join(dir, 'ca.pem'), testCertificate().cert);

    // Connections left idle inside a transaction, sampled from outside for the whole start.
    watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    const database = new URL(db.url!).pathname.slice(1);
    let longestIdleInTransactionMs = 0;
    watching = true;
    watch = (async () => {
      while (watching) {
        const { rows } = await watcher!.query<{ ms: number }>(
          `SELECT coalesce(max(extract(epoch FROM now() - state_change) * 1000), 0)::float8 AS ms
           FROM pg_stat_activity WHERE datname = $1 AND state = 'idle in transaction'`,
          [database],
        );
        longestIdleInTransactionMs = Math.max(longestIdleInTransactionMs, rows[0]!.ms);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    server = await startServerProcess({
      DATABASE_URL: db.url!,
      SEED_SAMPLE_DATA: 'true',
      LOG_LEVEL: 'info',
      SOURCES: '',
      SOURCES_FILE: join(dir, 'sources.json'),
      SOURCES_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    });
    // The first reads, while every source is still downloading.
    const health = await fetch(`${server.base}/health`);
    expect(health.status).toBe(200);
    const healthAt = performance.now();
    const issues = await fetch(`${server.base}/api/v1/issues?limit=5`);
    expect(issues.status).toBe(200);
    expect(performance.now() - healthAt).toBeLessThan(1000);

    await server.waitForLog((l) => l.msg === 'digest generated');
    const passAt = await server.waitForLog((l) => l.msg?.startsWith("sources' first sync done") ?? false);
    const pass = server.lines()[passAt];
    expect(pass).toMatchObject({ msg: `sources' first sync done: ${sources} of ${sources} synced`, failed: [] });
    watching = false;
    await watch;

    const output = JSON.stringify(server.lines());
    expect(output).not.toMatch(/timeout exceeded/i);
    expect(longestIdleInTransactionMs).toBeLessThan(1000);
    // Every lease was given back.
    const { rows } = await watcher.query('SELECT name FROM "SourceLease"');
    expect(rows).toEqual([]);
  },
  300_000,
);
