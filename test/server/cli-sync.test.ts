// `npm run cli -- sync` as a real process on a fresh database (embedded, or the PostgreSQL scratch
// database when TEST_DATABASE_URL is set): the KEV catalog and an EPSS file fill the signals of the
// matching served issue, the REST list shows them, and a second pass changes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { createTestApp } from '../helpers/app.js';
import { cliDatabase, runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/database.js';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const sources = JSON.stringify([
  { name: 'kev', kind: 'kev', location: path('../../data/kev/known_exploited_vulnerabilities.json') },
  { name: 'epss', kind: 'epss', location: path('../fixtures/sources/epss.csv') },
]);
let dir: string;
let pg: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secwire-cli-sync-'));
  ({ env, pg } = await cliDatabase(dir));
});
afterAll(async () => {
  await pg?.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli({ ...env, SOURCES: sources }, args);

it('fills kevDateAdded, epssScore and epssCheckedAt on the matching served issues, then changes nothing', async () => {
  const ingested = await cli('ingest', path('../fixtures/sources/GHSA-rvqx-wpfh-mfx7.json'));
  expect(ingested.code, ingested.stderr).toBe(0);

  const first = await cli('sync');
  expect(first.code, first.stderr).toBe(0);
  // The entries no advisory covers are issues of their own (served only when about AI software).
  expect(first.stdout).toMatch(/^kev \(kev\): synced in [\d.]+ s: received 1404, created 1403, updated 1, /m);
  expect(first.stdout).toMatch(/^epss \(epss\): synced in [\d.]+ s: received 132, created 0, updated 1, /m);
  const second = await cli('sync', 'epss');
  expect(second.stdout).toMatch(/^epss \(epss\): unchanged in /m);
  expect(second.stdout).not.toContain('kev');

  const db: Database = pg ?? (await openDatabase({ kind: 'pglite', dataDir: env.DATA_DIR }));
  const t = await createTestApp({}, db);
  try {
    const { data } = await (await t.fetch('/api/v1/issues?search=CVE-2025-3248')).json();
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      kevDateAdded: '2025-05-05',
      exploitMaturity: 'active',
      epssScore: 0.92841,
      epssCheckedAt: '2025-08-25T00:00:00.000Z',
    });
  } finally {
    await t.close();
    if (!pg) await db.close();
  }
}, 300_000);

it('names the configured sources when asked for another', async () => {
  const { code, stderr } = await cli('sync', 'nvd');
  expect(code).toBe(1);
  expect(stderr).toContain('no source named nvd; configured: kev, epss');
});
