// One-statement reads on the hot request paths (one issue, the latest digest, the stats, the data
// version) sent to the driver adapter Prisma itself uses, past Prisma's client: for a one-row read
// the client's query building, request pipeline and result mapping cost two to three times the
// driver's own CPU (0.30-0.45 ms against 0.10-0.14 ms per call at 100,000 issues, bench/README.md).
// The statement is written with Prisma.sql, so its parameters are bound, never spliced, and the
// rows come back with the types Prisma's own raw queries give them (Date, Decimal, BigInt, parsed
// JSON), so callers cannot tell the two apart. Same pool, same statement timeout, same errors
// (isDatabaseUnavailable reads the adapter's).
import type {
  ArgType,
  ColumnTypeEnum,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQueryable,
  SqlResultSet,
} from '@prisma/driver-adapter-utils';
import { Prisma } from '../generated/prisma/client.js';

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

type Code<K extends keyof typeof ColumnTypeEnum> = (typeof ColumnTypeEnum)[K];

/** The column types whose driver values Prisma's raw queries convert (@prisma/client's deserializeRawResult). */
const convert = new Map<number, (value: unknown) => unknown>([
  [1 satisfies Code<'Int64'>, (v) => BigInt(v as string)],
  [4 satisfies Code<'Numeric'>, (v) => new Prisma.Decimal(v as string)],
  [8 satisfies Code<'Date'>, (v) => new Date(v as string)],
  [10 satisfies Code<'DateTime'>, (v) => new Date(v as string)],
  [11 satisfies Code<'Json'>, (v) => JSON.parse(v as string)],
]);

function rowsOf<T>({ columnNames, columnTypes, rows }: SqlResultSet): T[] {
  const converters = columnTypes.map((type) => convert.get(type));
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columnNames.length; i++) {
      const value = values[i];
      row[columnNames[i]!] = value === null || !converters[i] ? value : converters[i]!(value);
    }
    return row as T;
  });
}

/** How the adapter binds a parameter, as Prisma's raw queries tell it; reads bind strings, numbers, instants and lists of strings. */
function argType(value: unknown): ArgType {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { scalarType: 'string', arity: 'list' };
  if (typeof value === 'string') return { scalarType: 'string', arity: 'scalar' };
  if (typeof value === 'number') return { scalarType: Number.isInteger(value) ? 'int' : 'float', arity: 'scalar' };
  if (value instanceof Date) return { scalarType: 'datetime', arity: 'scalar' };
  throw new Error(`driver read: unsupported parameter ${typeof value}`);
}

/**
 * The factory to give Prisma, and reads on the connection it opens: one connection (one pool) for
 * both, opened by whichever asks first, and opened again after Prisma disposes of it.
 */
export function withDriverReads<T extends Pick<SqlMigrationAwareDriverAdapterFactory, 'connect'>>(factory: T): { factory: T; read: DriverRead } {
  let connection: Promise<SqlDriverAdapter> | undefined;
  const connect = () =>
    (connection ??= factory.connect().then((adapter) => {
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = () => ((connection = undefined), dispose());
      return adapter;
    }));
  const shared = new Proxy(factory, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (key === 'connect') return connect;
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
  const read: DriverRead = async <R>(query: Prisma.Sql, settings?: Record<string, string>) => {
    const adapter = await connect();
    try {
      return rowsOf<R>(settings ? await withSettings(adapter, settings, query) : await run(adapter, query));
    } catch (err) {
      throw described(err);
    }
  };
  return { factory: shared, read };
}

/**
 * An adapter's error says only its kind (TableDoesNotExist), where Prisma's client would have said
 * what went wrong: the database's own words are added for the log. Same object, same kind and
 * codes, so isDatabaseUnavailable reads it as before.
 */
function described(err: unknown): unknown {
  const original = (err as { cause?: { originalMessage?: unknown } } | undefined)?.cause?.originalMessage;
  if (err instanceof Error && typeof original === 'string' && !err.message.includes(original)) err.message = `${err.message}: ${original}`;
  return err;
}

function run(on: SqlQueryable, { text, values }: Prisma.Sql): Promise<SqlResultSet> {
  return on.queryRaw({ sql: text, args: values, argTypes: values.map(argType) });
}

async function withSettings(adapter: SqlDriverAdapter, settings: Record<string, string>, query: Prisma.Sql): Promise<SqlResultSet> {
  const tx = await adapter.startTransaction();
  // An adapter either ends the transaction in commit() and rollback() (PGlite's) or leaves the
  // statement to its caller (node-postgres'), as Prisma's own transactions do.
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    try {
      if (!tx.options.usePhantomQuery) await tx.executeRaw({ sql: statement, args: [], argTypes: [] });
    } finally {
      await (statement === 'COMMIT' ? tx.commit() : tx.rollback());
    }
  };
  try {
    const local = Object.entries(settings).map(([name, value]) => Prisma.sql`set_config(${name}, ${value}, true)`);
    await run(tx, Prisma.sql`SELECT ${Prisma.join(local)}`);
    const result = await run(tx, query);
    await end('COMMIT');
    return result;
  } catch (err) {
    await end('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
