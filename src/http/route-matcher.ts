// The plain routes: answers that are no GraphQL value (health, readiness, the CSV and OSV exports,
// Atom feeds, TAXII), each a feature's handler, listed in one table (src/server/plain-routes.ts).
// One matcher finds a request's route; the same entry says which methods it answers (a 405 with
// Allow otherwise) and what a request costs of the rate limit.
import type { Plugin } from 'graphql-yoga';
import { methodNotAllowed } from './methods.js';

/** What a route's path matched: the whole path, then a pattern's groups. */
export type PathMatch = readonly (string | undefined)[];

export interface PlainCall {
  request: Request;
  url: URL;
  serverContext: object;
  match: PathMatch;
  fetchAPI: { Response: typeof Response };
}

/** A prefix (checked first: most requests pass without running the pattern) and the pattern's match of the whole path. */
export interface PathPattern {
  prefix: string;
  match: (pathname: string) => PathMatch | undefined;
}

export interface PlainRoute {
  /** An exact path, or a pattern. */
  path: string | PathPattern;
  /** The methods it answers (HEAD wherever GET: it arrives as GET, head.ts); every method when absent. */
  methods?: readonly string[];
  answer: (call: PlainCall) => Response | Promise<Response>;
  /** The rate-limit units of a request it answers (rest/request-costs.ts), when more than the ordinary one. */
  cost?: (url: URL, match: PathMatch) => number | undefined;
  /** Its own wording of a 405 (TAXII's error message); the envelope's otherwise. */
  notAllowed?: (method: string, path: string, allowed: readonly string[]) => Response;
}

/** A path pattern under `prefix`. */
export const pattern = (prefix: string, regex: RegExp): PathPattern => ({ prefix, match: (pathname) => regex.exec(pathname) ?? undefined });

export class PlainRoutes {
  private readonly exact = new Map<string, PlainRoute>();
  private readonly patterns: (PathPattern & { route: PlainRoute })[] = [];

  /** In order: the first pattern that matches a path is its route; an exact path goes before any pattern. */
  constructor(routes: readonly PlainRoute[]) {
    for (const route of routes) {
      if (typeof route.path === 'string') this.exact.set(route.path, route);
      else this.patterns.push({ ...route.path, route });
    }
  }

  /** The route of a path and what its path matched. */
  find(pathname: string): { route: PlainRoute; match: PathMatch } | undefined {
    const exact = this.exact.get(pathname);
    if (exact) return { route: exact, match: [pathname] };
    for (const { prefix, match, route } of this.patterns) {
      if (!pathname.startsWith(prefix)) continue;
      const matched = match(pathname);
      if (matched) return { route, match: matched };
    }
    return undefined;
  }

  /** The units a request spends, when a plain route answers it and says; undefined otherwise. */
  cost(method: string, url: URL): number | undefined {
    const found = this.find(url.pathname);
    if (!found?.route.cost || !allows(found.route, method)) return undefined;
    return found.route.cost(url, found.match);
  }

  plugin(): Plugin {
    return {
      // Synchronous for every other path (http/guard.ts).
      onRequest: ({ request, url, serverContext, endResponse, fetchAPI }) => {
        const found = this.find(url.pathname);
        if (!found) return;
        const { route, match } = found;
        if (!allows(route, request.method)) {
          const allowed = route.methods!;
          return endResponse((route.notAllowed ?? methodNotAllowed)(request.method, url.pathname, allowed));
        }
        const answer = route.answer({ request, url, serverContext, match, fetchAPI });
        if (answer instanceof Response) return endResponse(answer);
        return answer.then(endResponse);
      },
    };
  }
}

const allows = (route: PlainRoute, method: string) => !route.methods || route.methods.includes(method);
