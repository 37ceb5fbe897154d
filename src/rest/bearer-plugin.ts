// A route that needs a bearer key (its `bearer` scope in routes.ts) refuses a caller without one
// with a 401 before its body is read, so an anonymous client learns nothing from argument errors.
import type { Plugin } from 'graphql-yoga';
import { edgeOf } from '../http/edge.js';
import { hasScope, scopeRefusal, type Viewer } from '../keys/viewer.js';
import type { Logger } from '../log.js';
import { restFailure } from './failure.js';
import type { RestRoute } from './routes.js';

export function useRestBearer(options: { routes: Record<string, RestRoute>; viewerOf: (request: Request) => Viewer; log: Logger }): Plugin {
  const { routes, viewerOf, log } = options;
  return {
    onRequest({ request, endResponse }) {
      const rest = edgeOf(request).rest;
      const scope = rest && routes[rest.key]?.bearer;
      if (!scope) return;
      return hasScope(viewerOf(request), scope).then(
        (allowed) => {
          if (!allowed) endResponse(restFailure(log, [scopeRefusal[scope]()]));
        },
        (err: unknown) => endResponse(restFailure(log, [err])),
      );
    },
  };
}
