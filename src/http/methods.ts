// A wrong method on a known path is a 405 with Allow (RFC 9110 section 15.5.6), on every path the
// app serves: the REST routes (src/rest/gate.ts), and the fixed paths outside them listed here.
// Every GET path answers HEAD too (src/http/head.ts), so Allow names it.
import type { Plugin } from 'graphql-yoga';
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

/**
 * GET /health (the process is up), and 405s for the fixed paths outside /api/v1. Yoga's own
 * health check is not used: it answers any method, and any URL that merely ends in /health.
 * `absent`: paths Yoga would otherwise serve as another (it matches `/graphql/` as `/graphql`),
 * answered 404 so that one resource has one URL.
 */
export function useFixedPaths(paths: Record<string, readonly string[]>, absent: readonly string[] = []): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      // The error envelope (rest/gate.ts) words it as every unknown path's.
      if (absent.includes(url.pathname)) return endResponse(new Response(null, { status: 404 }));
      const allowed = paths[url.pathname];
      if (!allowed) return;
      if (!allowed.includes(request.method)) return endResponse(methodNotAllowed(request.method, url.pathname, allowed));
      if (url.pathname === '/health') endResponse(Response.json({ status: 'ok' }));
    },
  };
}
