// Transactions for bulk writes (an ingest chunk, a chunk of enrichment signals), run on a plain
// client of the database's own driver rather than through Prisma: a client from the node-postgres
// pool Prisma's adapter also uses, or the PGlite instance itself. Their statements carry megabytes
// of JSON as one parameter, and Prisma's debug module (the client runtime's copy and @prisma/debug,
// used by the driver adapters) keeps the arguments of its last 100 debug calls for error reports,
// debugging on or not: every statement's parameters with them. A sync writing 1,000-row chunks kept
// the last dozen chunks' payloads alive that way (bench/components.md, "Sources"); on the driver, a
// payload is garbage as soon as its statement is done.
//
// Same pool, so the same statement_timeout and connection timeout as Prisma's own queries; the
// drivers' errors carry the SQLSTATE that isDatabaseUnavailable reads.
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Prisma } from '../generated/prisma/client.js';
import { inPoolTransaction } from './pool-transaction.js';

/** A statement with its parameters: Prisma.sql`...` (bound, never spliced), or text with $n placeholders and its values. */
type Statement = Prisma.Sql | { text: string; values: unknown[] };

/** The transaction's connection. */
export interface BulkClient {
  /** Runs one statement and answers its rows (as the driver reads them: timestamps as Date, JSON parsed). */
  query<T = Record<string, unknown>>(statement: Statement): Promise<T[]>;
  /** Runs one statement and answers the number of rows it affected. */
  execute(statement: Statement): Promise<number>;
}

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export type BulkTransaction = <T>(work: (client: BulkClient) => Promise<T>) => Promise<T>;

/** What both drivers' connections offer: node-postgres's PoolClient and PGlite's Transaction. */
interface DriverClient {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount?: number | null; affectedRows?: number }>;
}

function bulkClient(driver: DriverClient): BulkClient {
  return {
    query: async <T>({ text, values }: Statement) => (await driver.query(text, values)).rows as T[],
    execute: async ({ text, values }: Statement) => {
      const result = await driver.query(text, values);
      return result.rowCount ?? result.affectedRows ?? 0;
    },
  };
}

/** Transactions on connections of `pool`, the one Prisma's adapter was given. */
export function poolTransactions(pool: pg.Pool): BulkTransaction {
  return (work) => inPoolTransaction(pool, (connection) => work(bulkClient(connection)));
}

/** Transactions on the embedded database, which runs one at a time (other statements wait for it, as they do for Prisma's). */
export function pgliteTransactions(pglite: PGlite): BulkTransaction {
  return (work) => pglite.transaction((tx) => work(bulkClient(tx)));
}
