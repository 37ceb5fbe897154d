// Issue counts per filter and data version: a broad search (search=injection matches a quarter of
// the table) costs a full count over every match, the most expensive statement of a list page, and
// it is the same number for every page, every cursor and every caller until the data changes. Kept
// in a bounded LRU keyed by the filter's SQL (its text and bound values) and the data version
// (data-version.ts), so `meta.total` stays exact: a count made before a change is never used after it.
import { LRUCache } from 'lru-cache';
import { Prisma } from '../generated/prisma/client.js';
import type { DataVersionReader } from './data-version.js';
import type { DriverRead } from './driver-read.js';

/** Distinct filters remembered; an entry is a key and a number. */
const COUNTS_KEPT = 5000;

/** The number of issues a condition over "Issue" (unaliased) selects. */
/** `version`: the data version as read for the request (edge.ts dataVersionOf); read here when absent. */
export type IssueCounter = (where: Prisma.Sql, version?: Promise<string>) => Promise<number>;

/**
 * Counts on the driver read (driver-read.ts), outside any transaction, so a count that could see
 * its own uncommitted rows is never kept.
 */
export function issueCounter(read: DriverRead, versions: DataVersionReader): IssueCounter {
  const counts = new LRUCache<string, number>({ max: COUNTS_KEPT });
  return async (where, version = versions.current()) => {
    // Read before counting: a count that starts after a change is never kept under an older version.
    const key = `${await version} ${where.text} ${JSON.stringify(where.values)}`;
    const known = counts.get(key);
    if (known !== undefined) return known;
    const [row] = await read<{ count: number }>(Prisma.sql`SELECT count(*)::int AS count FROM "Issue" WHERE ${where}`);
    counts.set(key, row!.count);
    return row!.count;
  };
}
