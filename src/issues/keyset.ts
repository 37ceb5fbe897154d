// Served issues read in keyset pages (publishedAt desc, id desc), for exports that stream every
// matching row: memory stays flat and each page starts where the last ended, whatever the size.
import { columnsSql, type DriverRead } from '../db/driver-read.js';
import { Prisma } from '../generated/prisma/client.js';
import { afterPosition } from './cursor.js';
import { issueOrderSql } from './filters.js';

type Position = { publishedAt: Date; id: string };

/** Pages of the rows `where` (SQL over "Issue") selects, with `columns` and the position's own two. */
export async function* issuePages<R extends Record<string, unknown>>(
  read: DriverRead,
  where: Prisma.Sql,
  columns: readonly string[],
  pageSize: number,
): AsyncGenerator<(R & Position)[]> {
  const select = columnsSql([...columns, 'publishedAt', 'id']);
  let after: Position | undefined;
  for (;;) {
    const page = await read<R & Position>(
      Prisma.sql`SELECT ${select} FROM "Issue" WHERE ${where}${after ? Prisma.sql` AND ${afterPosition(after)}` : Prisma.empty}
                 ORDER BY ${issueOrderSql} LIMIT ${pageSize}`,
    );
    if (page.length > 0) {
      const last = page[page.length - 1]!;
      after = { publishedAt: last.publishedAt, id: last.id };
      yield page;
    }
    if (page.length < pageSize) return;
  }
}
