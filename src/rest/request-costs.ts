// What one request spends of its client's per-minute budget (the rate limit, http/rate-limit.ts),
// as GitHub weighs its GraphQL API: a request whose work is many times an ordinary read's counts as
// many requests, so one address cannot buy seconds of work per request. The only place the weights
// are decided; README.md ("Limits") and docs/operations.md state them.
import { OSV_EXPORT_PATH } from '../osv-output/route.js';
import { STIX_LIMIT } from '../stix/bundle.js';
import { TAXII_LIMIT } from '../taxii/objects.js';
import { TAXII_ROOT } from '../taxii/route.js';
import { CSV_EXPORT_PATH } from './csv.js';
import { restBasePath } from './routes.js';

export const requestCosts = {
  /** The CSV export, the OSV zips and ecosystems.txt: a file of the whole dataset per download. */
  export: 10,
  /** POST /api/v1/scan: up to a thousand packages matched against every open issue. */
  scan: 5,
  /** STIX bundles and TAXII pages: one per default page of objects asked for (STIX 50, TAXII 100). */
  perDefaultPage: 1,
  /** Everything else. */
  request: 1,
} as const;

const STIX_PATH = `${restBasePath}/issues/stix`;
const TAXII_OBJECTS = new RegExp(`^${TAXII_ROOT}/api/collections/[^/]+/objects/?$`);

/** The `limit` a paged route will use: its default when absent or unreadable (the route refuses those), at most its maximum. */
function pageSize(url: URL, page: { defaultLimit: number; maxLimit: number }): number {
  const asked = Number(url.searchParams.get('limit') ?? Number.NaN);
  return Number.isSafeInteger(asked) && asked > 0 ? Math.min(asked, page.maxLimit) : page.defaultLimit;
}

const pageCost = (url: URL, page: { defaultLimit: number; maxLimit: number }) =>
  requestCosts.perDefaultPage * Math.ceil(pageSize(url, page) / page.defaultLimit);

/** The units a request spends (HEAD as its GET: both build the same answer). */
export function requestCost(method: string, url: URL): number {
  const { pathname } = url;
  const read = method === 'GET' || method === 'HEAD';
  if (read && (pathname === CSV_EXPORT_PATH || (pathname.startsWith(`${OSV_EXPORT_PATH}/`) && /\/(all\.zip|ecosystems\.txt)$/.test(pathname)))) {
    return requestCosts.export;
  }
  if (method === 'POST' && pathname === `${restBasePath}/scan`) return requestCosts.scan;
  if (read && pathname === STIX_PATH) return pageCost(url, STIX_LIMIT);
  if (read && TAXII_OBJECTS.test(pathname)) return pageCost(url, TAXII_LIMIT);
  return requestCosts.request;
}
