// The plain routes, in one table: every path the app answers outside GraphQL and the REST routes
// of src/rest/routes.ts, with the methods it answers, what a request costs of the rate limit
// (weights from src/rest/request-costs.ts) and the feature's handler. Matched by one matcher
// (src/http/route-matcher.ts), before the REST surface's 404 for the paths under /api/v1.
//
// POST /api/v1/scan with an SBOM is not here: it shares its path and method with the REST scan
// route, and which of the two answers depends on the body, which the REST body plugin reads once
// and hands to the SBOM handler first (src/sbom/route.ts).
import { issuesPath } from '../api-paths.js';
import type { Services } from '../context.js';
import { CSV_EXPORT_PATH, csvExport } from '../csv-export/route.js';
import { DIGESTS_ATOM_PATH, digestsAtomFeed, ISSUES_ATOM_PATH, issuesAtomFeed, STACK_FEED_PATTERN, stackAtomFeed } from '../feeds/route.js';
import { health, readiness } from '../health/route.js';
import { errorResponse } from '../http/envelope.js';
import type { ExportBuilds } from '../http/export-builds.js';
import { readMethods } from '../http/methods.js';
import { PlainRoutes, type PlainCall } from '../http/route-matcher.js';
import { OSV_EXPORT_PATTERN, osvExport } from '../osv-output/route.js';
import { pagedReadCost, requestCosts } from '../rest/request-costs.js';
import { TAXII_LIMIT } from '../taxii/objects.js';
import { isTaxiiObjects, TAXII_OTHER, TAXII_RESOURCE, taxiiNotAllowed, taxiiNotFound, taxiiResources } from '../taxii/route.js';

const exportCost = () => requestCosts.export;

/** Counts the rest of a plain route's units once its work is known (rate-limit.ts chargeWork). */
export type ChargeWork = (call: PlainCall, cost: number) => Promise<void>;

export function plainRoutes(services: Services, exports: ExportBuilds, graphqlEndpoint: string, charge: ChargeWork): PlainRoutes {
  return new PlainRoutes([
    { path: '/health', methods: readMethods, answer: health },
    { path: '/ready', methods: readMethods, answer: readiness(services) },
    { path: CSV_EXPORT_PATH, methods: readMethods, answer: csvExport(services, exports), cost: exportCost },
    // The export sits outside /api/v1, as the spec has it; the path a user guesses inside it is a
    // 404 that names the real one, never the issue route's answer for an id "export".
    { path: `${issuesPath}/export`, answer: () => errorResponse(404, `Not found: the CSV export is ${CSV_EXPORT_PATH} (outside /api/v1)`) },
    { path: OSV_EXPORT_PATTERN, methods: readMethods, answer: osvExport(services, exports), cost: exportCost },
    { path: ISSUES_ATOM_PATH, methods: readMethods, answer: issuesAtomFeed(services) },
    { path: DIGESTS_ATOM_PATH, methods: readMethods, answer: digestsAtomFeed(services) },
    { path: STACK_FEED_PATTERN, methods: readMethods, answer: stackAtomFeed(services, charge) },
    {
      path: TAXII_RESOURCE,
      methods: readMethods,
      answer: taxiiResources(services),
      notAllowed: taxiiNotAllowed,
      cost: (url, match) => (isTaxiiObjects(match) ? pagedReadCost(url, TAXII_LIMIT) : undefined),
    },
    { path: TAXII_OTHER, answer: taxiiNotFound },
    // Yoga serves `/graphql/` as `/graphql`; one resource has one URL. (The error envelope,
    // http/error-envelope.ts, words it as every unknown path's.)
    { path: `${graphqlEndpoint}/`, answer: () => new Response(null, { status: 404 }) },
  ]);
}
