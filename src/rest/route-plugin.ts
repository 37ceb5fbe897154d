// The first REST plugin: which route of the table a request under /api/v1 names (route-match.ts),
// kept on the request's edge context for the plugins after it. A path no route has is a 404; a
// path that routes have, but not for this method, a 405 with their methods in Allow. The OpenAPI
// document and the docs page answer GET (and HEAD) only.
import type { Plugin } from 'graphql-yoga';
import { edgeOf } from '../http/edge.js';
import { noRoute } from '../http/error-envelope.js';
import { onRequestFor } from '../http/guard.js';
import { methodNotAllowed, readMethods } from '../http/methods.js';
import { documentPages } from './documents.js';
import { RestRouteTable } from './route-match.js';
import { restBasePath, type RestRoute } from './routes.js';

const restPrefix = `${restBasePath}/`;
const isRestPath = (url: URL) => url.pathname === restBasePath || url.pathname.startsWith(restPrefix);

export function useRestRoutes(routes: Record<string, RestRoute>): Plugin {
  const table = new RestRouteTable(routes);
  return {
    onRequest: onRequestFor(isRestPath, ({ request, url, endResponse }) => {
      const path = url.pathname.slice(restBasePath.length);
      if (documentPages.includes(path)) {
        if (request.method !== 'GET') return endResponse(methodNotAllowed(request.method, url.pathname, readMethods));
        edgeOf(request).rest = { key: path, params: {}, cacheable: {} };
        return;
      }
      const found = table.match(request.method, path);
      if (!found) return endResponse(noRoute(request.method, url.pathname));
      if ('allowed' in found) return endResponse(methodNotAllowed(request.method, url.pathname, found.allowed));
      const { key, route, params } = found;
      // The same answer for every caller: the response cache may keep it.
      const cacheable = route.method === 'GET' && !route.bearer ? { ttlSeconds: route.cacheTtlSeconds } : undefined;
      edgeOf(request).rest = { key, params, cacheable };
    }),
  };
}
