// A wrong method on a known path is a 405 with Allow (RFC 9110 section 15.5.6), on every path the
// app serves: the REST routes (src/rest/route-match.ts) and the plain routes (src/server/plain-routes.ts).
// Every GET path answers HEAD too (src/http/head.ts), so Allow names it.
import { errorResponse } from './envelope.js';

export const readMethods = ['GET', 'HEAD'] as const;

export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): Response {
  return errorResponse(405, `Method ${method} is not allowed on ${path}; use ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
}

/** The methods a route answers, HEAD added wherever GET is. */
export function withHead(methods: Iterable<string>): string[] {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return [...set];
}
