// What every surface serves of issues: which ones, and how a field they share is written.
import { Prisma } from '../generated/prisma/client.js';

/** Issues served now or withdrawn since: the changes a mirror applies (Query.issueChanges) include withdrawals. */
export const publishedIssueSql = Prisma.sql`"relevant" AND "processed"`;

/** Only relevant, processed, non-withdrawn issues are ever served, on any surface (SQL over "Issue", unaliased). */
export const servedIssueSql = Prisma.sql`${publishedIssueSql} AND NOT "withdrawn"`;

/** servedIssueSql's rule for a row in hand (one about to be written may leave processed to its column default, true). */
export const isServed = (row: { relevant: boolean; processed?: boolean; withdrawn?: boolean | null }) =>
  row.relevant && row.processed !== false && !row.withdrawn;

/** The columns servedIssueSql reads: a subquery selects them when its caller applies the test. */
export const servedColumnsSql = Prisma.sql`"relevant", "processed", "withdrawn"`;

/** cvssScore as every surface serves it: a decimal string with one digit after the point ("9.8"). */
export function formatCvssScore(score: Prisma.Decimal | null): string | null {
  return score === null ? null : score.toFixed(1);
}
