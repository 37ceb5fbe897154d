// Which route of the table (routes.ts) a REST request names: the same answer sofa-api's router
// gives (a fixed path before a pattern, `:name` one path segment, decoded), and, when none answers
// the request's method, the methods that would: a 405 with Allow comes from the table itself.
import { withHead } from '../http/methods.js';
import type { RestRoute } from './routes.js';

interface Compiled {
  key: string;
  route: RestRoute;
  /** A fixed path's text, or a pattern with its parameter names. */
  path: string | { regex: RegExp; names: string[] };
}

export type RouteMatch = { key: string; route: RestRoute; params: Record<string, string> } | { allowed: string[] } | undefined;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(path: string): Compiled['path'] {
  if (!path.includes(':')) return path;
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escape(segment);
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { regex: new RegExp(`^${source}$`), names };
}

/** The parameters of `path` under `compiled`, or undefined when it is not the route's (a parameter that is not valid percent-encoding names nothing). */
function paramsOf(compiled: Compiled['path'], path: string): Record<string, string> | undefined {
  if (typeof compiled === 'string') return compiled === path ? {} : undefined;
  const found = compiled.regex.exec(path);
  if (!found) return undefined;
  const params: Record<string, string> = {};
  try {
    compiled.names.forEach((name, i) => {
      params[name] = decodeURIComponent(found[i + 1]!);
    });
  } catch {
    return undefined;
  }
  return params;
}

const firstSegment = (path: string) => path.split('/', 2)[1];

export class RestRouteTable {
  /** Fixed paths first, then patterns, each in table order. */
  private readonly compiled: Compiled[];
  /** The methods of the routes under each first path segment (`issues` for /issues/:id/osv), in table order: Allow's order. */
  private readonly methodsUnder = new Map<string, string[]>();

  constructor(routes: Record<string, RestRoute>) {
    const all = Object.entries(routes).map(([key, route]) => ({ key, route, path: compile(route.path) }));
    this.compiled = [...all.filter((c) => typeof c.path === 'string'), ...all.filter((c) => typeof c.path !== 'string')];
    for (const { method, path } of Object.values(routes)) {
      const segment = firstSegment(path)!;
      const methods = this.methodsUnder.get(segment) ?? [];
      if (!methods.includes(method)) methods.push(method);
      this.methodsUnder.set(segment, methods);
    }
  }

  /** The route a request names (its path relative to the base path), the methods allowed there, or undefined (a 404). */
  match(method: string, path: string): RouteMatch {
    const methods = this.methodsUnder.get(firstSegment(path) ?? '');
    if (!methods) return undefined;
    const answers = (m: string) => this.find(m, path);
    const found = answers(method);
    if (found) return found;
    const allowed = methods.filter((m) => m !== method && answers(m));
    return allowed.length ? { allowed: withHead(allowed) } : undefined;
  }

  private find(method: string, path: string) {
    for (const { key, route, path: compiled } of this.compiled) {
      if (route.method !== method) continue;
      const params = paramsOf(compiled, path);
      if (params) return { key, route, params };
    }
    return undefined;
  }
}
