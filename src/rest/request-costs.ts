// What one request spends of its client's per-minute budget (the rate limit, http/rate-limit.ts),
// as GitHub weighs its GraphQL API: a request whose work is many times an ordinary read's counts as
// many requests, so one address cannot buy seconds of work per request. The only place the weights
// are decided, for REST routes (by path), the plain routes (their entries in
// src/server/plain-routes.ts name these) and GraphQL operations (by root field) alike; README.md
// ("Limits"), docs/api.md and docs/operations.md state them.
import { stackCosts } from '../stacks/cost.js';
import { STIX_LIMIT } from '../stix/bundle.js';
import { restBasePath } from './routes.js';

export const requestCosts = {
  /** The CSV export, the OSV zips and ecosystems.txt: a file of the whole dataset per download. */
  export: 10,
  /** POST /api/v1/scan and Query.scan: up to a thousand packages matched against every open issue. */
  scan: 5,
  /** STIX bundles (REST and Query.stixBundle) and TAXII pages: one per default page of objects asked for (STIX 50, TAXII 100). */
  perDefaultPage: 1,
  /** A watched stack's findings, VEX, Atom feed or registration: by its size, once it is read (stacks/cost.ts). */
  stack: stackCosts,
  /** Everything else: a REST request, or a GraphQL root field. */
  request: 1,
} as const;

export type Page = { defaultLimit: number; maxLimit: number };

/** The `limit` a paged read will use: its default when absent or unreadable (the read refuses those), at most its maximum. */
function pageSize(asked: unknown, page: Page): number {
  return Number.isSafeInteger(asked) && (asked as number) > 0 ? Math.min(asked as number, page.maxLimit) : page.defaultLimit;
}

const pageCost = (asked: unknown, page: Page) => requestCosts.perDefaultPage * Math.ceil(pageSize(asked, page) / page.defaultLimit);

const STIX_PATH = `${restBasePath}/issues/stix`;

/** The units of a paged read (a STIX bundle, a TAXII page): its `limit`, in default pages. */
export const pagedReadCost = (url: URL, page: Page) => pageCost(Number(url.searchParams.get('limit') ?? Number.NaN), page);

/** The units a REST request spends (HEAD as its GET: both build the same answer). */
export function requestCost(method: string, url: URL): number {
  const { pathname } = url;
  if (method === 'POST' && pathname === `${restBasePath}/scan`) return requestCosts.scan;
  if ((method === 'GET' || method === 'HEAD') && pathname === STIX_PATH) return pagedReadCost(url, STIX_LIMIT);
  return requestCosts.request;
}

/**
 * The units one root field of a GraphQL query spends, by the same weights as its REST route (its
 * arguments as coerced; introspection costs nothing beside the request's own unit).
 */
export function rootFieldCost(field: string, args: Record<string, unknown>): number {
  if (field.startsWith('__')) return 0;
  if (field === 'scan') return requestCosts.scan;
  if (field === 'stixBundle') return pageCost(args.limit, STIX_LIMIT);
  return requestCosts.request;
}
