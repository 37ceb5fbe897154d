// Served issues read in keyset pages (publishedAt desc, id desc), for exports that stream every
// matching row: memory stays flat and each page starts where the last ended, whatever the size.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { issueOrder } from './filters.js';

type Cursor = { publishedAt: Date; id: string };

export async function* issuePages<S extends Prisma.IssueSelect & { publishedAt: true; id: true }>(
  prisma: PrismaClient,
  where: Prisma.IssueWhereInput,
  select: S,
  pageSize: number,
): AsyncGenerator<Prisma.IssueGetPayload<{ select: S }>[]> {
  let after: Cursor | undefined;
  for (;;) {
    const page = (await prisma.issue.findMany({
      // The lte bound is implied by the OR, but it is what lets the index scan start at the
      // previous page's end; without it every page rescans all earlier rows (quadratic).
      where: after
        ? {
            AND: [
              where,
              { publishedAt: { lte: after.publishedAt } },
              { OR: [{ publishedAt: { lt: after.publishedAt } }, { publishedAt: after.publishedAt, id: { lt: after.id } }] },
            ],
          }
        : where,
      orderBy: issueOrder,
      take: pageSize,
      select,
    })) as unknown as (Prisma.IssueGetPayload<{ select: S }> & Cursor)[];
    if (page.length > 0) {
      const last = page[page.length - 1]!;
      after = { publishedAt: last.publishedAt, id: last.id };
      yield page;
    }
    if (page.length < pageSize) return;
  }
}
