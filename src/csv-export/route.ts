// GET /api/issues/export: served issues as CSV (outside /api/v1, so a plain route,
// src/server/plain-routes.ts, rather than a SOFA one). It takes the list route's filters, parsed
// by the same code (src/issues/filters.ts), so the same bad value gets the same 400 envelope; the
// body streams from the database page by page (src/issues/csv.ts) into a file built once per data
// version and query (http/export-builds.ts).
// The licence Link header comes from finish() (http/finish.ts), as on every /api route.
import type { Services } from '../context.js';
import { rejectUnknownParameters } from '../params.js';
import type { ExportBuilds } from '../http/export-builds.js';
import type { PlainCall } from '../http/route-matcher.js';
import type { GraphQLObjectType } from 'graphql';
import { csvColumnsFor, csvHeaderFor, issueCsvStream } from '../issues/csv.js';
import { filterDescriptions, issueFilterSql, parseIssueFilters, queryFilters } from '../issues/filters.js';
import { caughtFailure, errorResponse } from '../http/envelope.js';
import { schema } from '../schema/index.js';

export const CSV_EXPORT_PATH = '/api/issues/export';

/** The GraphQL Issue fields, in the schema's order; classification becomes the provenance columns. */
const issueFields = Object.keys((schema.getType('Issue') as GraphQLObjectType).getFields()).filter((name) => name !== 'classification');
export const csvColumns = csvColumnsFor(issueFields);
export const csvHeader = () => csvHeaderFor(issueFields);

export function csvExport({ db, log }: Pick<Services, 'db' | 'log'>, exports: ExportBuilds) {
  return async ({ request, url, serverContext }: PlainCall): Promise<Response> => {
    let where;
    try {
      rejectUnknownParameters(url.searchParams, Object.keys(filterDescriptions));
      where = issueFilterSql(parseIssueFilters(queryFilters(url.searchParams)));
    } catch (err) {
      const { status, message, headers } = caughtFailure(err, log);
      return errorResponse(status, message, headers);
    }
    const headers = {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="secwire-issues-${new Date().toISOString().slice(0, 10)}.csv"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    };
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    const filter = where;
    return exports.serve(request, serverContext, `${url.pathname}${url.search}`, () => issueCsvStream(db.read, filter, issueFields), headers);
  };
}
