// Scratch databases for benchmarks: an in-memory PGlite and a throw-away PostgreSQL database, both
// migrated, each with the app's Database shape plus direct driver access for plain-SQL baselines.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { pgliteTransactions } from '../src/db/bulk.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { pgliteReads } from '../src/db/driver-read.js';
import { newPGlite } from '../src/db/pglite.js';
import { migrate } from '../src/db/migrator.js';
import { PrismaClient } from '../src/generated/prisma/client.js';

export const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  db: Database;
  /** The scratch database's URL, on PostgreSQL. */
  url?: string;
  /** Runs SQL on the driver directly (no Prisma), returning the rows. */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** A migrated PGlite, in memory or in `dataDir` (which a server process can open once this is closed). */
export async function scratchPGlite(dataDir?: string): Promise<BenchDatabase> {
  const pglite = newPGlite(dataDir);
  const adapterFactory = new PrismaPGlite(pglite);
  await migrate(adapterFactory);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  const close = async () => {
    await prisma.$disconnect();
    await pglite.close();
  };
  return {
    db: { prisma, read: pgliteReads(pglite), bulkTransaction: pgliteTransactions(pglite), adapterFactory, kind: 'pglite', pglite, close },
    sql: async <T>(query: string, params: unknown[] = []) => (await pglite.query<T>(query, params)).rows,
    close,
  };
}

/** Opens an existing PostgreSQL database (no migration). */
export async function connectPostgres(url: string): Promise<BenchDatabase> {
  const db = await openDatabase({ kind: 'postgres', url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    db,
    url,
    sql: async <T>(query: string, params: unknown[] = []) => (await client.query(query, params)).rows as T[],
    close: async () => {
      await client.end();
      await db.close();
    },
  };
}

/** A new, empty PostgreSQL database beside `adminUrl`'s (not migrated); drop() removes it. */
export async function emptyPostgres(adminUrl = postgresUrl): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `secwire_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A new, migrated PostgreSQL database, dropped again by close(). */
export async function scratchPostgres(): Promise<BenchDatabase> {
  const empty = await emptyPostgres();
  const migrator = await openDatabase({ kind: 'postgres', url: empty.url });
  // Released: otherwise this process keeps PostgreSQL's migration lock, and a CLI started on the
  // same database (bench/reclassify.ts) waits for it for ever.
  await migrate(migrator.adapterFactory, { releaseConnections: true });
  await migrator.close();
  const bench = await connectPostgres(empty.url);
  return {
    ...bench,
    close: async () => {
      await bench.close();
      await empty.drop();
    },
  };
}

/** Runs `measure` on a fresh PGlite, then on a fresh PostgreSQL database, closing each after. */
export async function onBothDatabases<T>(measure: (db: Database) => Promise<T>): Promise<{ onPGlite: T; onPostgres: T }> {
  const pglite = await scratchPGlite();
  const onPGlite = await measure(pglite.db).finally(() => pglite.close());
  const postgres = await scratchPostgres();
  const onPostgres = await measure(postgres.db).finally(() => postgres.close());
  return { onPGlite, onPostgres };
}

export async function time(iterations: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(5, iterations); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return samples.sort((a, b) => a - b);
}

export const median = (samples: number[]) => samples[Math.floor(samples.length / 2)]!;
