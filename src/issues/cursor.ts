// The list route's opaque cursor: the position (publishedAt, id) of the last issue of a page. The
// next page starts strictly after it in the list order, so issues inserted anywhere in the list
// never shift a walk the way they shift an offset.
import { badRequest } from '../errors.js';
import type { Prisma } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';

export const cursorDescription =
  'Opaque position from a previous page (the Link header\'s rel="next"): the page starts right after it, whatever was added since. Not with offset.';

export const encodeCursor = (issue: { publishedAt: Date | string; id: string }) =>
  Buffer.from(JSON.stringify([new Date(issue.publishedAt).toISOString(), issue.id])).toString('base64url');

/** The `where` for the issues after a cursor; a 400 for anything this server did not give. */
export function afterCursor(cursor: string): Prisma.IssueWhereInput {
  let publishedAt: Date | undefined;
  let id: unknown;
  try {
    const [time, last] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    publishedAt = typeof time === 'string' ? new Date(time) : undefined;
    id = last;
  } catch {
    // falls through to the 400
  }
  if (!publishedAt || Number.isNaN(publishedAt.getTime()) || typeof id !== 'string' || !isUuid(id)) throw badRequest('cursor is not a value this server gave');
  return { OR: [{ publishedAt: { lt: publishedAt } }, { publishedAt, id: { lt: id } }] };
}
