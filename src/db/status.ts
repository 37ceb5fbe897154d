import { readdir } from 'node:fs/promises';
import type { Database } from './client.js';
import { migrationsDir } from './migrator.js';

/** True when the database answers and has applied every migration on disk. */
export async function isMigrated(db: Database): Promise<boolean> {
  const onDisk = (await readdir(migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).length;
  const rows = await db.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return Number(rows[0]?.n ?? 0) >= onDisk;
}
