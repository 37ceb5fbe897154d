// REST at /api/v1: sofa-api's router (createSofaRouter) serves the routes of routes.ts inside
// Yoga, with Yoga's context and execute (so the same plugins, error masking and logging): one
// process, one port, one pipeline.
//
// SOFA alone does not give the spec's answers: a wrong method is an unknown path to it (no 405),
// it has no bearer check, it reads any body as JSON whatever its Content-Type and only as an
// object of arguments, and it words a bad value in GraphQL's terms. So each of its route handlers
// is wrapped: a route that needs a bearer key is authenticated first (before its body is read, so
// an anonymous client learns nothing from argument errors), the body is read once here (415 and
// 400 in the envelope, a bodyArgument route's record or array as that argument, the scan's SBOM
// to its own handler), the arguments are checked against their GraphQL types (arguments.ts), and
// SOFA gets them beside the path's parameters, where it looks first, with no body of its own and a
// URL without its fragment (SOFA would read it as part of the last query value); a path SOFA does
// not match is asked of it again for each other method that has a route under the same first
// segment, to tell a 405 from a 404 (a path whose first segment no route has is a 404 at once).
import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import { GraphQLError, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { ExecutionArgs, ExecutionResult, GraphQLField } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { createSofa, createSofaRouter } from 'sofa-api';
import { envelopeFor, errorResponse, logUnexpected } from '../http/envelope.js';
import { onRequestFor } from '../http/guard.js';
import { noteCachedRoute } from '../http/finish.js';
import { methodNotAllowed, readMethods, withHead } from '../http/methods.js';
import type { ResponseCache } from '../http/response-cache.js';
import { hasScope, scopeRefusal, type Viewer } from '../keys/viewer.js';
import type { Logger } from '../log.js';
import { checkRestArguments } from './arguments.js';
import { restDocuments } from './documents.js';
import { restBasePath, type RestRoute } from './routes.js';

/**
 * The per-request server context as the gate leaves it, for the response hooks that need the
 * route's answer (the paging links): they read it there instead of parsing the JSON body back.
 */
export interface RestAnswered {
  restAnswer?: unknown;
}

type Yoga = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
type Enveloped = ReturnType<Yoga['getEnveloped']>;

/** A route's own handling of its parsed body (a scan sent as an SBOM); undefined hands it back to the route. */
export type BodyHandler = (request: Request, body: { value: unknown } | { invalid: true }) => Promise<Response | undefined>;

/** What a wrapped SOFA handler is called with instead of a bare server context (SOFA adds `request` to it). */
interface RestCall {
  serverContext: object & RestAnswered;
  /** The request as Yoga has it (SOFA's `request` is the view made for it). */
  original: Request;
  url: URL;
  viewer: Viewer;
  fetchAPI: { Response: typeof Response };
  /** `routed` once a route of ours has the request; `probe`: the call only asks whether one would (for a 405's Allow). */
  routed: boolean;
  probe: boolean;
  /** The body's arguments given as null: SOFA drops them, and null means something (`"stack": null` stops watching). */
  nulls?: Record<string, null>;
}

/** What fets hands a route handler: its own copy of the context the router was called with. */
interface Routed {
  call: RestCall;
}

/**
 * The schema the routes are built from: only the root fields that have a route (and no
 * subscriptions), and no field marked graphqlOnly (a route selects every field of a type, so REST
 * would gain keys).
 */
export function restSchema(schema: GraphQLSchema, routes: Record<string, RestRoute>): GraphQLSchema {
  const pick = (type: GraphQLObjectType | null | undefined) => {
    if (!type) return undefined;
    const config = type.toConfig();
    const fields = Object.fromEntries(Object.entries(config.fields).filter(([name]) => `${type.name}.${name}` in routes));
    return Object.keys(fields).length ? new GraphQLObjectType({ ...config, fields }) : undefined;
  };
  const rootOnly = new GraphQLSchema({ query: pick(schema.getQueryType()), mutation: pick(schema.getMutationType()) });
  // Pruned: a type only a dropped field used (IssueClassification) would linger in the OpenAPI document.
  return pruneSchema(mapSchema(rootOnly, { [MapperKind.OBJECT_FIELD]: (field) => (field.extensions?.graphqlOnly ? null : field) }));
}

/** The paths the gate answers: the REST surface, its documents and its 404s and 405s. */
const restPrefix = `${restBasePath}/`;
const isRestPath = (url: URL) => url.pathname === restBasePath || url.pathname.startsWith(restPrefix);

const hasBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH';

const jsonType = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** The request's JSON body, read and parsed once: undefined when empty, `{invalid}` when not JSON. */
async function readJson(request: Request): Promise<{ value: unknown } | { invalid: true } | undefined> {
  if (!hasBody(request.method)) return undefined;
  const text = await request.text();
  if (!text) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { invalid: true };
  }
}

/** The body as top-level arguments; a route with a `bodyArgument` takes a body that is not `{name: ...}` as that argument. */
function bodyArguments(request: Request, route: RestRoute, body: Awaited<ReturnType<typeof readJson>>): Record<string, unknown> | Response {
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

/** Path parameters as SOFA's router decodes them; undefined when one is not valid percent-encoding (the path names nothing). */
function pathParams(request: Request): Record<string, unknown> | undefined {
  try {
    return { ...(request as Request & { params?: Record<string, string> }).params };
  } catch {
    return undefined;
  }
}

export interface RestGateOptions {
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  log: Logger;
  /** The API version shown in the OpenAPI document. */
  version: string;
  /** Where GraphQL (and GraphiQL) is served, for the docs page. */
  graphqlEndpoint: string;
  /** The caller of a request; checked against a route's bearer scope, then handed to the context. */
  viewerOf: (request: { headers: Pick<Headers, 'get'> }) => Viewer;
  /** Routes that may answer a body themselves before it is read as arguments. */
  bodyHandlers?: Partial<Record<string, BodyHandler>>;
  /** Where GET routes without a bearer key (the same answer for every caller) and the documents keep their answers. */
  responseCache?: ResponseCache;
}

const customScalars = { DateTime: { type: 'string', format: 'date-time' }, JSON: {} };

export function useRestGate({ schema, routes, log, version, graphqlEndpoint, viewerOf, bodyHandlers = {}, responseCache }: RestGateOptions): Plugin {
  const routeSchema = restSchema(schema, routes);
  let yoga: Yoga;
  // The Yoga pipeline of each operation SOFA runs, by its context value.
  const runs = new WeakMap<object, { enveloped: Enveloped; call: RestCall }>();
  // Misses to keep once every plugin has added its headers, by server context (one per request).
  const toStore = new WeakMap<object, { key: string; ttlSeconds?: number }>();

  const failed = (errors: readonly unknown[]): Response => {
    const { status, message, headers, unexpected } = envelopeFor(errors);
    // Errors masked during execution were logged there; these escaped it (the context, the gate itself).
    for (const err of unexpected) if (!(err instanceof GraphQLError)) logUnexpected(log, err);
    return errorResponse(status, message, headers);
  };

  const sofa = createSofa({
    basePath: restBasePath,
    schema: routeSchema,
    routes,
    customScalars,
    async context(sofaContext) {
      const call = sofaContext as unknown as RestCall;
      const enveloped = yoga.getEnveloped({ ...call.serverContext, request: call.original, viewer: call.viewer });
      const contextValue = (await enveloped.contextFactory()) as object;
      runs.set(contextValue, { enveloped, call });
      return contextValue;
    },
    // Through Yoga's envelop execute, on the whole schema (the operation is valid there as well).
    async execute(args: ExecutionArgs) {
      const { enveloped, call } = runs.get(args.contextValue as object)!;
      const variableValues = { ...call.nulls, ...args.variableValues };
      const result = (await enveloped.execute({ ...args, variableValues, schema: enveloped.schema })) as ExecutionResult;
      if (!result.errors && result.data) call.serverContext.restAnswer = Object.values(result.data)[0];
      return result;
    },
    errorHandler: (errors) => failed(errors) as never,
  });
  const router = createSofaRouter(sofa);
  const documents = restDocuments({ schema, routes, basePath: restBasePath, version, graphqlEndpoint, sofaDocument: router.openAPIDocument });
  const pages: Record<string, () => Promise<Response>> = {
    '/openapi.json': async () => Response.json((await documents()).openapi),
    '/docs': async () => new Response((await documents()).docs, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  };
  // The methods of the routes under each first path segment (`issues` for /issues/:id/osv).
  const firstSegment = (path: string) => path.split('/', 2)[1]!;
  const methodsUnder = new Map<string, string[]>();
  for (const { method, path } of Object.values(routes)) {
    const methods = methodsUnder.get(firstSegment(path)) ?? [];
    if (!methods.includes(method)) methods.push(method);
    methodsUnder.set(firstSegment(path), methods);
  }
  // The request handler under fets' generic entry point (`handle` also sorts out node and
  // FetchEvent calls); a context in two parts is copied onto a plain object, where one would
  // become the prototype of the copy, a costly shape change for an object new with each request.
  const routeRequest = router.handleRequest as unknown as (request: Request, routed: Routed, nothing: object) => Promise<Response | undefined>;
  const nothing = {};

  /** The cached answer, or undefined after noting the key, so onResponse keeps what the route answers. */
  async function fromCache(request: Request, url: URL, serverContext: object, fetchAPI: { Response: typeof Response }, ttlSeconds?: number) {
    const key = await responseCache?.keyOf(request.headers, url);
    if (!key) return undefined;
    noteCachedRoute(serverContext);
    const hit = await responseCache!.replay(key, request, serverContext, fetchAPI.Response);
    if (!hit) toStore.set(serverContext, { key, ttlSeconds });
    return hit;
  }

  type SofaHandler = (request: Request, call: RestCall) => Promise<Response | undefined>;

  /** What runs before SOFA's handler of the route `key` (see the comment at the top). */
  async function gate(key: string, route: RestRoute, field: GraphQLField<unknown, unknown>, request: Request, call: RestCall, sofaHandler: SofaHandler) {
    const params = pathParams(request);
    if (!params) return undefined;
    call.routed = true;
    if (call.probe) return new call.fetchAPI.Response(null, { status: 204 });
    const { original, url, viewer, serverContext, fetchAPI } = call;
    // The same answer for every caller: served from the cache when it holds this URL at this data version.
    if (route.method === 'GET' && !route.bearer) {
      const hit = await fromCache(original, url, serverContext, fetchAPI, route.cacheTtlSeconds);
      if (hit) return hit;
    }
    try {
      if (route.bearer && !(await hasScope(viewer, route.bearer))) return failed([scopeRefusal[route.bearer]()]);
      const body = hasBody(route.method) ? await readJson(original) : undefined;
      const own = bodyHandlers[key] && (await bodyHandlers[key](original, body ?? { value: undefined }));
      if (own) return own;
      const args = bodyArguments(original, route, body);
      if (args instanceof Response) return args;
      checkRestArguments(field, { params, query: url.searchParams, body: args });
      // SOFA takes a query value before the body's (an empty one falls back to the body).
      for (const name in args) if (!url.searchParams.get(name)) params[name] ??= args[name];
      call.nulls = Object.fromEntries(Object.keys(args).flatMap((name) => (params[name] === null ? [[name, null]] : [])));
      const view = { url: request.url.split('#')[0], method: request.method, headers: request.headers, body: null, params };
      return await sofaHandler(view as unknown as Request, call);
    } catch (err) {
      return failed([err]);
    }
  }

  // SOFA's own subscription routes (/webhook) are not part of the API: they answer nothing.
  const byRoute = new Map(Object.entries(routes).map(([key, route]) => [`${route.method} ${route.path}`, key]));
  for (const sofaRoute of router.__routes) {
    const key = byRoute.get(`${sofaRoute.method} ${sofaRoute.path}`);
    const sofaHandler = sofaRoute.handler as unknown as SofaHandler;
    if (!key) {
      sofaRoute.handler = (() => undefined) as never;
      continue;
    }
    const [typeName, fieldName] = key.split('.') as [string, string];
    const field = (typeName === 'Mutation' ? routeSchema.getMutationType() : routeSchema.getQueryType())!.getFields()[fieldName]!;
    sofaRoute.handler = ((request: Request, { call }: Routed) =>
      gate(key, routes[key]!, field as GraphQLField<unknown, unknown>, request, call, sofaHandler)) as never;
  }

  /** The other methods SOFA's router answers at this URL, among those of the routes under its first segment. */
  async function allowedAt(request: Request, call: RestCall, methods: string[]): Promise<string[]> {
    const allowed: string[] = [];
    for (const method of methods) {
      if (method === request.method) continue;
      const probe = { ...call, routed: false, probe: true };
      // What the router reads of a request: no Request needs building for a probe.
      await routeRequest({ url: request.url, method, headers: request.headers } as Request, { call: probe }, nothing);
      if (probe.routed) allowed.push(method);
    }
    return withHead(allowed);
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as unknown as Yoga;
    },
    onRequest: onRequestFor(isRestPath, async ({ request, url, endResponse, serverContext, fetchAPI }) => {
      const page = pages[url.pathname.slice(restBasePath.length)];
      if (page) {
        if (request.method !== 'GET') return endResponse(methodNotAllowed(request.method, url.pathname, readMethods));
        return endResponse((await fromCache(request, url, serverContext, fetchAPI)) ?? (await page()));
      }
      const methods = methodsUnder.get(firstSegment(url.pathname.slice(restBasePath.length)));
      if (!methods) return endResponse(errorResponse(404, `No route ${request.method} ${url.pathname} (see ${restBasePath}/docs)`));
      const call: RestCall = { serverContext, original: request, url, viewer: viewerOf(request), fetchAPI, routed: false, probe: false };
      // What the router reads of a request, as for a probe: given Yoga's Request, fets would define
      // properties on it (a new shape for every later hook that reads it) and watch its abort signal.
      const routed = { url: request.url, method: request.method, headers: request.headers } as Request;
      const answer = await routeRequest(routed, { call }, nothing);
      if (answer && call.routed) return endResponse(answer);
      const allowed = await allowedAt(request, call, methods);
      if (allowed.length) return endResponse(methodNotAllowed(request.method, url.pathname, allowed));
      endResponse(errorResponse(404, `No route ${request.method} ${url.pathname} (see ${restBasePath}/docs)`));
    }),
    // After useFinish: the licence and paging links are on the response by now. Synchronous unless
    // there is an answer to keep (http/guard.ts).
    onResponse({ request, response, serverContext, setResponse, fetchAPI }) {
      const pending = toStore.get(serverContext);
      // A HEAD's body is gone already (useHead): nothing to keep.
      if (!pending || response.status !== 200 || !response.body) return;
      return responseCache!.store(pending.key, request, response, fetchAPI.Response, pending.ttlSeconds).then(setResponse);
    },
  };
}

/**
 * Every other error answer gets the envelope too: unknown paths anywhere (Yoga's bare 404), the
 * rest of /api. GraphQL's own errors are JSON already and keep their shape.
 */
export function useErrorEnvelope(): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      // JSON already (application/json, GraphQL's application/graphql-response+json), or a GraphQL
      // event stream, whose refusal (a subscription over its cap) is an error event in the stream.
      if (response.status < 400 || /[/+]json\b|^text\/event-stream/.test(response.headers.get('content-type') ?? '')) return;
      const path = new URL(request.url).pathname;
      const message = response.status === 404 ? `No route ${request.method} ${path} (see ${restBasePath}/docs)` : undefined;
      const enveloped = errorResponse(response.status, message);
      response.headers.forEach((value, name) => {
        if (name !== 'content-type' && name !== 'content-length') enveloped.headers.set(name, value);
      });
      setResponse(enveloped);
    },
  };
}
