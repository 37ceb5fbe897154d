// How issues are read, in one place: a resolver says which columns (its selection) and which issues
// (validated filters, an id, a page); this module says how they are found. Every statement goes
// past Prisma's client through db/driver-read.ts, whose rows look like Prisma's own raw reads: for
// these hot reads the client's query building and row mapping cost more CPU than the driver.
import type { DriverRead } from '../db/driver-read.js';
import { Prisma } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';
import { afterCursor } from './cursor.js';
import { changeOrderSql, issueFilterSql, issueOrderSql, issueOrderSqlFor, type IssueFilters } from './filters.js';
import { publishedIssueSql, servedIssueSql } from './served.js';

export interface IssuePageQuery {
  filters: IssueFilters;
  /** Rows start after this cursor (the filters still decide which rows). */
  cursor?: string | null;
  limit: number;
  offset: number;
}

/** One page of the served issues matching the filters, in the list's order. */
export function readIssuePage<T>(read: DriverRead, columns: Prisma.Sql, { filters, cursor, limit, offset }: IssuePageQuery): Promise<T[]> {
  const filtered = issueFilterSql(filters);
  const where = cursor ? Prisma.sql`${filtered} AND ${afterCursor(cursor)}` : filtered;
  return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${where} ORDER BY ${issueOrderSqlFor(filters)} LIMIT ${limit} OFFSET ${offset}`);
}

/** One served issue by id; undefined for any other id, malformed ones included. */
export async function readServedIssue<T>(read: DriverRead, columns: Prisma.Sql, id: string): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const [issue] = await read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE id = ${id}::uuid AND ${servedIssueSql}`);
  return issue;
}

/** The first served issue matching the filters (an alias: ingest merges issues sharing one, so there is at most one). */
export async function readFirstIssue<T>(read: DriverRead, columns: Prisma.Sql, filters: IssueFilters): Promise<T | undefined> {
  const [issue] = await read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${issueFilterSql(filters)} ORDER BY ${issueOrderSql} LIMIT 1`);
  return issue;
}

/** Changes after `modifiedSince` (every change when absent), oldest first; withdrawals are changes too, so not the served rule. */
export function readIssueChanges<T>(read: DriverRead, columns: Prisma.Sql, modifiedSince: Date | undefined, limit: number): Promise<T[]> {
  const after = modifiedSince ? Prisma.sql` AND "modifiedAt" > ${modifiedSince}` : Prisma.empty;
  return read<T>(
    Prisma.sql`SELECT ${columns}, "modifiedAt", "withdrawn" FROM "Issue" WHERE ${publishedIssueSql}${after} ORDER BY ${changeOrderSql} LIMIT ${limit}`,
  );
}

/** The served issues among these ids, in the list's order. */
export function readServedIssues<T>(read: DriverRead, columns: Prisma.Sql, ids: string[]): Promise<T[]> {
  return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${servedIssueSql} AND id = ANY(${ids}::uuid[]) ORDER BY ${issueOrderSql}`);
}

/** Which of these ids are served issues matching the filters. */
export async function matchingIssueIds(read: DriverRead, filters: IssueFilters, ids: string[]): Promise<string[]> {
  const rows = await read<{ id: string }>(Prisma.sql`SELECT id FROM "Issue" WHERE ${issueFilterSql(filters)} AND id = ANY(${ids}::uuid[])`);
  return rows.map((r) => r.id);
}
