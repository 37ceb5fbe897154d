// Issue counts per filter and data version: a broad search (search=injection matches a quarter of
// the table) costs a full count over every match, the most expensive statement of a list page, and
// it is the same number for every page, every cursor and every caller until the data changes. Kept
// in a bounded LRU keyed by the filter and the data version (data-version.ts), so `meta.total` stays
// exact: a count made before a change is never used after it.
import { LRUCache } from 'lru-cache';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { DataVersionReader } from './data-version.js';

/** Distinct filters remembered; an entry is a key and a number. */
const COUNTS_KEPT = 5000;

/**
 * The client, with `issue.count` answered from the cache when the filter was counted at this data
 * version. Only that one method of the outer client: a transaction (`$transaction`) runs on the
 * plain client, so a count that could see its own uncommitted rows is never kept.
 */
export function withCountCache(prisma: PrismaClient, versions: DataVersionReader): PrismaClient {
  const counts = new LRUCache<string, number>({ max: COUNTS_KEPT });
  const plain = prisma.issue;
  async function count(args: Parameters<typeof plain.count>[0] = {}) {
    // Counts of selected fields (an object, not a number) are rare and not kept.
    if (args.select) return plain.count(args);
    // Read before counting: a count that starts after a change is never kept under an older version.
    const key = `${await versions.current()} ${JSON.stringify(args)}`;
    const known = counts.get(key);
    if (known !== undefined) return known;
    const counted = await plain.count(args);
    counts.set(key, counted);
    return counted;
  }
  // Everything else is the client's own, called on the client itself (bound once per method).
  const bound = new WeakMap<object, unknown>();
  const own = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target) as unknown;
    if (typeof value !== 'function') return value;
    let method = bound.get(value);
    if (!method) bound.set(value, (method = value.bind(target)));
    return method;
  };
  const issue = new Proxy(plain, { get: (target, prop) => (prop === 'count' ? count : own(target, prop)) });
  return new Proxy(prisma, { get: (target, prop) => (prop === 'issue' ? issue : own(target, prop)) });
}
