// The embedded database. Loaded only when no DATABASE_URL is set: under tsx, importing PGlite
// costs a PostgreSQL deployment about 50 MB of RSS for nothing.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { pgliteTransactions } from './bulk.js';
import { lockDataDir } from './data-dir-lock.js';
import { pgliteReads } from './driver-read.js';
import { keepCheckpointing, walStartParams } from './pglite-checkpoints.js';
import { unpackClusterTemplate } from './pglite-template.js';

// PostgreSQL's default 128 MB of shared buffers lives in the Wasm heap, which never shrinks: it was
// most of the embedded server's memory, and a first sync fills whatever is given, for the process's
// life. 16 MB holds the sample many times over; a page outside them is read from the OS's page cache
// (bench/README.md, first-sync and throughput, has the figures).
// ANALYZE (the sync's own, sources/records.ts; PGlite runs no autovacuum) holds its sample rows
// whole, 300 per unit of the statistics target: at the default 100, 30,000 rows of Issue grew the
// Wasm heap by tens of MB for good. 10 samples 3,000 rows, enough for what the sync asks of the
// statistics (the table's size, so that lookups probe the indexes).
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'default_statistics_target=10', ...walStartParams];

/** A PGlite (in memory without a dataDir) with the extensions our migrations use (also the diff's shadow DB). */
export function newPGlite(dataDir?: string, loadDataDir?: Blob): PGlite {
  return new PGlite({ dataDir, loadDataDir, extensions: { pg_trgm }, startParams });
}

/**
 * PGlite's adapter opens shadow databases without extensions, so CREATE EXTENSION pg_trgm would
 * fail there; ours hands out shadow databases that have it.
 */
function pgliteFactory(client: PGlite): SqlMigrationAwareDriverAdapterFactory {
  const main = new PrismaPGlite(client);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    connectToShadowDb: () => new PrismaPGlite(newPGlite()).connect(),
  } as SqlMigrationAwareDriverAdapterFactory;
}

/**
 * `seeded`: a new data directory may start from the install-time cluster that already holds the
 * sample data (see pglite-template.ts); `seededFromTemplate` then says what that seed did.
 */
export async function openPGlite(dataDir?: string, loadDataDir?: Blob, { seeded = false } = {}) {
  const unlock = dataDir ? await lockDataDir(dataDir) : undefined;
  const unpacked = dataDir && !loadDataDir ? await unpackClusterTemplate(dataDir, { seeded }) : null;
  const pglite = newPGlite(dataDir, loadDataDir);
  const adapterFactory = pgliteFactory(pglite);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  const checkpoints = keepCheckpointing(pglite);
  return {
    prisma,
    read: pgliteReads(pglite),
    bulkTransaction: pgliteTransactions(pglite),
    adapterFactory,
    kind: 'pglite' as const,
    pglite,
    seededFromTemplate: unpacked?.template === 'seeded' ? unpacked.seed : undefined,
    close: async () => {
      // A query still running (a /ready probe that gave up waiting, say) would make close() hang
      // for ever: queue behind it first (PGlite runs one query at a time).
      await pglite.query('SELECT 1').catch(() => undefined);
      await checkpoints.stop();
      await prisma.$disconnect();
      await pglite.close();
      await unlock?.();
    },
  };
}
