// Points Prisma's full-text `search` filter at the indexed generated column. Prisma (preview
// fullTextSearchPostgres) compiles `searchText: { search: q }` to
//   to_tsvector(concat_ws(' ', "Issue"."searchText")) @@ to_tsquery(concat_ws(' ', $n))
// which computes every row's vector with the session's default configuration (no index can serve
// it) and rejects ordinary words as tsquery syntax. The driver adapter here turns it into
//   "Issue"."searchVector" @@ websearch_to_tsquery('english', $n)
// before the statement leaves the process: the GIN index on searchVector answers it, and any text
// a user types is a valid query (quotes for phrases, "or", a leading "-" to exclude).
// Prisma and the where clause stay the only way queries are written (src/issues/filters.ts).
import { withDriverConnections } from './driver-connection.js';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, SqlQueryable } from '@prisma/driver-adapter-utils';

/** The configuration the searchVector column is generated with (migration full_text_search). */
export const SEARCH_CONFIGURATION = 'english';

// Prisma 7 passes the parameter bare; earlier versions wrapped it in concat_ws too.
const prismaSearch = /to_tsvector\(concat_ws\(' ', ((?:"\w+"\.)?"Issue"\."searchText")\)\) @@ to_tsquery\((?:(\$\d+)|concat_ws\(' ', (\$\d+)\))\)/g;

export function rewriteFullTextSearch(sql: string): string {
  if (!sql.includes('to_tsquery(')) return sql;
  const rewritten = sql.replace(prismaSearch, (_match, column: string, bare?: string, wrapped?: string) => {
    const vector = column.replace(/"searchText"$/, '"searchVector"');
    return `${vector} @@ websearch_to_tsquery('${SEARCH_CONFIGURATION}', ${bare ?? wrapped})`;
  });
  // A search on another column, or a shape a newer Prisma writes, would run unindexed and fail on
  // plain words: refuse it loudly (tests catch it) rather than serve it slowly or wrongly.
  if (/(^|[^_])to_tsquery\(/.test(rewritten)) throw new Error('full-text search: unexpected SQL from Prisma, see src/db/full-text-search.ts');
  return rewritten;
}

const rewrite = (query: SqlQuery): SqlQuery => ({ ...query, sql: rewriteFullTextSearch(query.sql) });

/** The queryable (connection or transaction) with every statement passed through the rewrite. */
function rewriting<T extends SqlQueryable>(target: T): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      if (key === 'queryRaw' || key === 'executeRaw') return (query: SqlQuery) => value.call(object, rewrite(query));
      // Transactions also answer driver-connection claims (driver-connection.ts).
      if (key === 'startTransaction') return async (...args: unknown[]) => withDriverConnections(rewriting(await value.apply(object, args)));
      return value.bind(object);
    },
  });
}

/** The adapter factory whose connections (and their transactions) rewrite Prisma's search. */
export function withFullTextSearch<T extends Pick<SqlMigrationAwareDriverAdapterFactory, 'connect'>>(factory: T): T {
  return new Proxy(factory, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (key === 'connect') return async () => rewriting((await factory.connect()) as SqlDriverAdapter);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
