// A REST request's JSON body, read and parsed once, before SOFA (which gets the arguments instead,
// sofa.ts): a body that is not JSON is a 415 or a 400 in the envelope, a route may answer a body
// itself first (the scan's SBOM), and a `bodyArgument` route takes a record or an array as that
// one argument.
import type { Plugin } from 'graphql-yoga';
import { edgeOf } from '../http/edge.js';
import { errorResponse } from '../http/envelope.js';
import type { Logger } from '../log.js';
import { restFailure } from './failure.js';
import type { RestRoute } from './routes.js';

/** A route's own handling of its parsed body (a scan sent as an SBOM); undefined hands it back to the route. */
export type BodyHandler = (request: Request, body: { value: unknown } | { invalid: true }) => Promise<Response | undefined>;

type Body = { value: unknown } | { invalid: true } | undefined;

const hasBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH';

const jsonType = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** The request's JSON body: undefined when empty, `{invalid}` when not JSON. */
async function readJson(request: Request): Promise<Body> {
  const text = await request.text();
  if (!text) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { invalid: true };
  }
}

/** The body as top-level arguments; a route with a `bodyArgument` takes a body that is not `{name: ...}` as that argument. */
function bodyArguments(request: Request, route: RestRoute, body: Body): Record<string, unknown> | Response {
  if (!body) return {};
  if (!jsonType.test(request.headers.get('content-type') ?? '')) return errorResponse(415, 'The request body must be sent as Content-Type: application/json');
  if ('invalid' in body) return errorResponse(400, 'The request body must be JSON');
  const { value } = body;
  const isObject = !!value && typeof value === 'object' && !Array.isArray(value);
  const name = route.bodyArgument;
  if (name && !(isObject && Object.keys(value).length === 1 && name in value)) return { [name]: Array.isArray(value) ? value : [value] };
  // Arguments are the body's keys; any other JSON (null, a list, a number) names none.
  if (!isObject) return errorResponse(400, 'The request body must be a JSON object');
  return value as Record<string, unknown>;
}

export interface RestBodyOptions {
  routes: Record<string, RestRoute>;
  /** Routes that may answer a body themselves before it is read as arguments, by route key. */
  bodyHandlers: Partial<Record<string, BodyHandler>>;
  log: Logger;
}

export function useRestBody({ routes, bodyHandlers, log }: RestBodyOptions): Plugin {
  async function read(request: Request, key: string, route: RestRoute): Promise<Response | Record<string, unknown>> {
    const body = await readJson(request);
    const own = await bodyHandlers[key]?.(request, body ?? { value: undefined });
    return own ?? bodyArguments(request, route, body);
  }
  return {
    onRequest({ request, endResponse }) {
      const rest = edgeOf(request).rest;
      const route = rest && routes[rest.key];
      if (!rest || !route || !hasBody(route.method)) return;
      return read(request, rest.key, route).then(
        (read) => {
          if (read instanceof Response) endResponse(read);
          else rest.bodyArguments = read;
        },
        (err: unknown) => endResponse(restFailure(log, [err])),
      );
    },
  };
}
