// The embedded database checkpoints by itself once enough WAL has piled up: PGlite has no
// checkpointer, and past about 530 MB of WAL without a checkpoint it hangs (src/db/pglite-checkpoints.ts).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkpointAfterBytes, checkpointIfDue } from '../../src/db/pglite-checkpoints.js';
import { newPGlite } from '../../src/db/pglite.js';

let dir: string;
let pglite: ReturnType<typeof newPGlite>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secwire-checkpoints-'));
  pglite = newPGlite(dir);
  await pglite.exec('CREATE TABLE filler (v text)');
});
afterAll(async () => {
  await pglite.close();
  await rm(dir, { recursive: true, force: true });
});

const walSinceCheckpoint = async () =>
  (await pglite.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()')).rows[0]!
    .bytes;

it('checkpoints once the WAL since the last checkpoint passes the threshold, and not before', async () => {
  expect(await checkpointIfDue(pglite)).toBe(false);
  // About 2 kB of incompressible text per row, 20 MB of WAL per round.
  while ((await walSinceCheckpoint()) < checkpointAfterBytes) {
    await pglite.exec(`INSERT INTO filler SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 10000) g, generate_series(1, 64) h GROUP BY g`);
    await pglite.exec('DELETE FROM filler');
  }
  const segmentsBefore = (await readdir(join(dir, 'pg_wal'))).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
  expect(await checkpointIfDue(pglite)).toBe(true);
  expect(await walSinceCheckpoint()).toBeLessThan(1024 * 1024);
  expect(await checkpointIfDue(pglite)).toBe(false);
  // The segments before the checkpoint are removed, not kept for reuse: pg_wal holds the current
  // segment and at most one made ready for the next.
  const segmentsAfter = (await readdir(join(dir, 'pg_wal'))).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
  expect(segmentsBefore).toBeGreaterThan(2);
  expect(segmentsAfter).toBeLessThanOrEqual(2);
}, 120_000);

it('starts PostgreSQL with the hang pushed far out (max_wal_size), and old segments removed rather than kept (wal_recycle)', async () => {
  const { rows } = await pglite.query<{ size: string; recycle: string }>(
    "SELECT current_setting('max_wal_size') AS size, current_setting('wal_recycle') AS recycle",
  );
  expect(rows[0]).toEqual({ size: '8GB', recycle: 'off' });
});
