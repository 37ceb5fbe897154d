// The list route's opaque cursor: the position (publishedAt, id) of the last issue of a page. The
// next page starts strictly after it in the list order, so issues inserted anywhere in the list
// never shift a walk the way they shift an offset.
import { inDateRange } from '../dates.js';
import { badRequest } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';

export const cursorDescription =
  'Opaque position from a previous page (the Link header\'s rel="next"): the page starts right after it, whatever was added since. Not with offset.';

export const encodeCursor = (issue: { publishedAt: Date | string; id: string }) =>
  Buffer.from(JSON.stringify([new Date(issue.publishedAt).toISOString(), issue.id])).toString('base64url');

/**
 * The issues after a position in the list order (publishedAt desc, id desc), as SQL over "Issue".
 * The lte bound is implied by the OR, but it is what lets an index scan start at the position;
 * without it a walk rescans every earlier row on each page (quadratic).
 */
export function afterPosition({ publishedAt, id }: { publishedAt: Date; id: string }): Prisma.Sql {
  return Prisma.sql`"publishedAt" <= ${publishedAt} AND ("publishedAt" < ${publishedAt} OR ("publishedAt" = ${publishedAt} AND "id" < ${id}::uuid))`;
}

/** The condition for the issues after a cursor; a 400 for anything this server did not give. */
export function afterCursor(cursor: string): Prisma.Sql {
  let publishedAt: Date | undefined;
  let id: unknown;
  try {
    const [time, last] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    publishedAt = typeof time === 'string' ? new Date(time) : undefined;
    id = last;
  } catch {
    // falls through to the 400
  }
  // A position outside the stored dates (year 0, before the epoch) cannot be one this server gave.
  if (!publishedAt || Number.isNaN(publishedAt.getTime()) || !inDateRange(publishedAt) || typeof id !== 'string' || !isUuid(id)) {
    throw badRequest('cursor is not a value this server gave');
  }
  return afterPosition({ publishedAt, id });
}
