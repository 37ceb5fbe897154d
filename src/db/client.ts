// One factory for both databases: embedded PGlite in a directory (or in memory) when no URL is
// given, PostgreSQL through node-postgres when one is. Same Prisma client, same migrations.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; schema?: string }
  | { kind: 'pglite'; dataDir?: string; /** a dumpDataDir() tarball to start from (test templates) */ loadDataDir?: Blob };

export interface Database {
  prisma: PrismaClient;
  /** Migration-aware adapter factory, for the Wasm schema engine. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: DatabaseTarget['kind'];
  /** The embedded instance, when kind is pglite (dumps for test templates). */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** A PGlite (in memory without a dataDir) with the extensions our migrations use (also the diff's shadow DB). */
export function newPGlite(dataDir?: string, loadDataDir?: Blob): PGlite {
  return new PGlite({ dataDir, loadDataDir, extensions: { pg_trgm } });
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

export function openDatabase(target: DatabaseTarget): Database {
  if (target.kind === 'postgres') {
    const adapterFactory = new PrismaPg(
      { connectionString: target.url, max: 10 },
      target.schema ? { schema: target.schema } : undefined,
    );
    const prisma = new PrismaClient({ adapter: adapterFactory });
    return { prisma, adapterFactory, kind: 'postgres', close: () => prisma.$disconnect() };
  }
  const pglite = newPGlite(target.dataDir, target.loadDataDir);
  const adapterFactory = pgliteFactory(pglite);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    prisma,
    adapterFactory,
    kind: 'pglite',
    pglite,
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
