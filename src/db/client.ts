// One factory for both databases: embedded PGlite in a directory (or in memory) when no URL is
// given, PostgreSQL through node-postgres when one is. Same Prisma client, same migrations.
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { poolTransactions, type BulkTransaction } from './bulk.js';
import { poolReads, type DriverRead } from './driver-read.js';
import { DatabaseLiveness } from './liveness.js';
import { useFastTextArrays } from './text-arrays.js';
import type { SeededTemplate } from './pglite-template.js';

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; schema?: string }
  | {
      kind: 'pglite';
      dataDir?: string;
      /** a dumpDataDir() tarball to start from (test templates) */
      loadDataDir?: Blob;
      /** a new dataDir may start from the install-time cluster with the sample data seeded */
      seeded?: boolean;
    };

export interface Database {
  prisma: PrismaClient;
  /** One-statement reads on a plain driver client past Prisma (driver-read.ts). */
  read: DriverRead;
  /** Bulk writes' transactions, on a plain driver client past Prisma (bulk.ts). */
  bulkTransaction: BulkTransaction;
  /** Migration-aware adapter factory, for the Wasm schema engine. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: DatabaseTarget['kind'];
  /** The embedded instance, when kind is pglite (dumps for test templates). */
  pglite?: PGlite;
  /** The install-time seed's summary, when a new data directory started from the seeded cluster. */
  seededFromTemplate?: SeededTemplate;
  close(): Promise<void>;
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === 'pglite') {
    const { openPGlite } = await import('./pglite.js');
    return await openPGlite(target.dataDir, target.loadDataDir, { seeded: target.seeded });
  }
  useFastTextArrays();
  const connection = { connectionString: target.url, max: 10 };
  const options = target.schema ? { schema: target.schema } : undefined;
  // Requests: a statement still running after 30 s is a fault that would hold a connection others
  // need, and a connection not had within 5 s means the database is not answering (the request
  // then gets a 503 instead of waiting for ever). Migrations may rightly run longer.
  // A statement whose connection went silent is failed after 35 s on this side too (the server's
  // statement_timeout cannot reach us then), so the connection leaves the pool instead of being lost to it.
  const pool = new pg.Pool({ ...connection, statement_timeout: 30_000, query_timeout: 35_000, connectionTimeoutMillis: 5_000 });
  // An idle connection the server closed (a restart) leaves the pool; the next query opens another.
  pool.on('error', () => undefined);
  // Requests do not wait on a database that hangs: liveness.ts.
  const liveness = new DatabaseLiveness({ connectionString: target.url });
  liveness.watch(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, options) });
  const adapterFactory = new PrismaPg(connection, options);
  const close = async () => {
    liveness.close();
    await prisma.$disconnect();
    await pool.end();
  };
  return { prisma, read: poolReads(pool), bulkTransaction: poolTransactions(pool), adapterFactory, kind: 'postgres', close };
}
