// One-statement reads on the hot request paths (one issue, a page of issues, the latest digest, the
// stats, the data version), run on the database's own driver: the node-postgres pool Prisma's
// adapter is given, or the PGlite instance. Prisma's client would cost more CPU than the driver's
// own work for such a read (bench/README.md), and its driver adapter alone still adds a debug call
// and a conversion of every value, which a raw query's result then converts once more.
//
// The statement is written with Prisma.sql, so its parameters are bound, never spliced, and the
// rows come back with the values Prisma's own raw queries give (Date, Decimal, BigInt, parsed JSON,
// arrays), so callers cannot tell the two apart: where a driver reads a type otherwise, this query
// alone reads it Prisma's way, and the parsers Prisma's adapter uses stay as they are. Same pool,
// same statement timeout; the drivers' errors carry the database's own message and the SQLSTATE
// that isDatabaseUnavailable reads.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { inPoolTransaction } from './pool-transaction.js';
import { simpleStatement } from './simple-statement.js';

/**
 * Runs one statement and answers its rows. With `settings` (name to value), it runs in a
 * transaction that sets them for itself alone (SET LOCAL): BEGIN, one set_config statement, the
 * statement, COMMIT.
 */
export type DriverRead = <T = Record<string, unknown>>(query: Prisma.Sql, settings?: Record<string, string>) => Promise<T[]>;

/**
 * A SELECT list of a model's columns, from code's own names (a Prisma `select` object's keys, the
 * fields of a GraphQL type named after them), never from a request: quoting them is enough.
 */
export function columnsSql(names: Iterable<string>): Prisma.Sql {
  return Prisma.raw([...new Set(names)].map((column) => `"${column}"`).join(', '));
}

/**
 * Text values, by type OID, that a driver reads otherwise than Prisma: int8 and numeric as strings
 * or numbers, `timestamp` (no zone) and (node-postgres) `date` in local time, where Prisma reads
 * both as UTC. A timestamptz carries its offset.
 */
const parsers: Record<number, (text: string) => unknown> = {
  20: (text) => BigInt(text),
  1700: (text) => new Prisma.Decimal(text),
  1082: (text) => new Date(text),
  1114: (text) => new Date(`${text}+00`),
  1184: (text) => new Date(text),
};

/** node-postgres' parsers for one query: ours, else the process's (text-arrays.ts's for text[]). */
const pgTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (format !== 'binary' && parsers[oid]) || pg.types.getTypeParser(oid, format),
} as pg.CustomTypesConfig;

/** Instants bound as UTC, as Prisma's adapters bind them (node-postgres would write local time). */
const bound = (values: unknown[]) => values.map((value) => (value instanceof Date ? value.toISOString() : value));

/** Reads on `pool`, the pool Prisma's adapter was given; a statement whose parameters can be written in goes as a simple query. */
export function poolReads(pool: pg.Pool): DriverRead {
  return driverRead<pg.Pool | pg.PoolClient>(
    pool,
    async (on, statement) => {
      const simple = simpleStatement(statement);
      const query = simple === undefined ? { text: statement.text, values: bound(statement.values), types: pgTypes } : { text: simple, types: pgTypes };
      return (await on.query(query)).rows;
    },
    (work) => inPoolTransaction(pool, work),
  );
}

/** Reads on the embedded database (which runs one statement at a time, Prisma's and ours alike). */
export function pgliteReads(pglite: PGlite): DriverRead {
  return driverRead<PGlite | Transaction>(
    pglite,
    async (on, { text, values }) => (await on.query(text, bound(values), { parsers })).rows,
    (work) => pglite.transaction(work),
  );
}

function driverRead<C>(
  client: C,
  query: (on: C, statement: Prisma.Sql) => Promise<unknown[]>,
  transaction: (work: (on: C) => Promise<unknown[]>) => Promise<unknown[]>,
): DriverRead {
  return async <T>(statement: Prisma.Sql, settings?: Record<string, string>) => {
    if (!settings) return (await query(client, statement)) as T[];
    const local = Object.entries(settings).map(([name, value]) => Prisma.sql`set_config(${name}, ${value}, true)`);
    return (await transaction(async (on) => {
      await query(on, Prisma.sql`SELECT ${Prisma.join(local)}`);
      return query(on, statement);
    })) as T[];
  };
}

/** The same kind of read through Prisma's raw query, for work off the request path (a digest, a registry look-up). */
export const prismaRead =
  (prisma: Pick<PrismaClient, '$queryRaw'>): DriverRead =>
  <T>(query: Prisma.Sql) =>
    prisma.$queryRaw<T[]>(query);
