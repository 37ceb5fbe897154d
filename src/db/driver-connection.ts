// Statements sent on a Prisma transaction's own connection without passing through Prisma. For
// bulk writes whose one parameter is megabytes of JSON: Prisma's debug module (the client
// runtime's copy and @prisma/debug, used by the driver adapters) keeps the arguments of its last
// 100 debug calls for error reports, debugging on or not, and those include every statement's
// parameters. A sync writing 1,000-row chunks kept the last dozen chunks' ~5 MB payloads alive
// that way (hundreds of MB of peak RSS); sent on the driver directly, a payload is garbage as soon
// as its statement is done.
//
// How the driver connection is found: the adapter factory wrapper (withDriverConnections, applied
// in client.ts and pglite.ts) answers a marker statement sent on a transaction by registering that
// transaction's driver client under the statement's token, and does not send it to the database.
// Prisma never exposes its transaction's connection otherwise.
import { randomUUID } from 'node:crypto';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { Prisma } from '../generated/prisma/client.js';

/** What both drivers' transaction clients offer: node-postgres's PoolClient and PGlite's Transaction. */
interface DriverClient {
  query(sql: string, params: unknown[]): Promise<{ rowCount?: number | null; affectedRows?: number }>;
}

/** Harmless if it ever reaches a database (an adapter not wrapped): it selects nothing. */
const claimSql = "SELECT 1 WHERE $1::text = 'secwire: driver connection claim'";
const claims = new Map<string, DriverClient>();

/** The transaction (of either adapter) with the claim marker answered from its driver client. */
function claimable<T extends SqlQueryable>(transaction: T): T {
  return new Proxy(transaction, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (key !== 'executeRaw' || typeof value !== 'function') return typeof value === 'function' ? value.bind(object) : value;
      return (query: SqlQuery) => {
        const client = (object as unknown as { client?: DriverClient }).client;
        if (query.sql !== claimSql || typeof client?.query !== 'function') return value.call(object, query);
        claims.set(String(query.args[0]), client);
        return Promise.resolve(0);
      };
    },
  });
}

/** The connection, whose transactions answer the claim marker. */
function claimingTransactions(connection: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(connection, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      if (key === 'startTransaction') return async (...args: unknown[]) => claimable(await value.apply(object, args));
      return value.bind(object);
    },
  });
}

/** The adapter factory to give Prisma: its connections' transactions answer the claim marker. */
export function withDriverConnections<T extends Pick<SqlMigrationAwareDriverAdapterFactory, 'connect'>>(factory: T): T {
  return new Proxy(factory, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (key === 'connect') return async () => claimingTransactions((await factory.connect()) as SqlDriverAdapter);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/** A driver's error in the shape Prisma's adapters give theirs, so isDatabaseUnavailable reads it alike. */
function asAdapterError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return Object.assign(new Error(err.message, { cause: err }), { kind: 'postgres', code, severity });
}

/** Runs one statement and answers the number of rows affected. */
export type DriverExecute = (sql: string, params: unknown[]) => Promise<number>;

/**
 * The transaction's connection as a statement runner, past Prisma, claimed once for any number of
 * statements; through Prisma when the adapter offers no driver client (same result, only the
 * payloads are then retained for a while).
 */
export async function driverExecutor(tx: Prisma.TransactionClient): Promise<DriverExecute> {
  const token = randomUUID();
  await tx.$executeRawUnsafe(claimSql, token);
  const client = claims.get(token);
  claims.delete(token);
  if (!client) return (sql, params) => tx.$executeRawUnsafe(sql, ...params);
  return async (sql, params) => {
    try {
      const result = await client.query(sql, params);
      return result.rowCount ?? result.affectedRows ?? 0;
    } catch (err) {
      throw asAdapterError(err);
    }
  };
}
