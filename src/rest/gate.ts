// REST at /api/v1, derived from the GraphQL schema and run inside Yoga: the same context, the same
// execute (so the same plugins, error masking and logging), one process, one port.
//
// One gate per request: the route table (routes.ts) is matched once, a route that needs a bearer
// key is authenticated once (before its body is read, so an anonymous client learns nothing from
// argument errors; only the body limit comes earlier), the body is parsed once, the arguments are
// checked against their GraphQL types (arguments.ts, so a bad value is a 400 in our own words),
// and the route's operation (built the way SOFA builds it) runs through Yoga's execute.
// SOFA itself only describes the routes: its OpenAPI document is completed in openapi.ts.
import { buildOperationNodeForField, MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import { GraphQLBoolean, GraphQLError, GraphQLObjectType, GraphQLSchema, isInputObjectType, isScalarType, Kind, OperationTypeNode } from 'graphql';
import type { DocumentNode, GraphQLField, TypeNode, VariableDefinitionNode } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { parse as parseQueryString } from 'qs';
import type { DirectRead, RouteAnswer, RouteRequest } from '../http/early-reply.js';
import { envelopeFor, errorAnswer, errorResponse, JSON_TYPE } from '../http/envelope.js';
import { methodNotAllowed, readMethods, withHead } from '../http/methods.js';
import { currentRequestId } from '../http/request-id.js';
import { isReplay, varyOnEncoding, type ResponseCache } from '../http/response-cache.js';
import { hasScope, scopeRefusal, type Viewer } from '../keys/viewer.js';
import type { Logger } from '../log.js';
import { checkRestArguments } from './arguments.js';
import { restDocuments } from './documents.js';
import { restModels } from './models.js';
import { restBasePath, type RestRoute } from './routes.js';

/**
 * The per-request server context as the gate leaves it, for the response hooks that need the
 * route's answer (the paging links): they read it there instead of parsing the JSON body back.
 */
export interface RestAnswered {
  restAnswer?: unknown;
}

type Yoga = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;

/** A route's own handling of its parsed body (a scan sent as an SBOM); undefined hands it back to the route. */
export type BodyHandler = (request: Request, body: { value: unknown } | { invalid: true }) => Promise<Response | undefined>;

interface CompiledRoute {
  key: string;
  route: RestRoute;
  pattern: RegExp;
  paramNames: string[];
  field: GraphQLField<unknown, unknown>;
  document: DocumentNode;
  variables: readonly VariableDefinitionNode[];
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

/** SOFA's defaults for what a route's operation selects: every field, nested models by id, one level of circular references. */
const sofaSelection = { ignore: [] as string[], depthLimit: 1 };

function compileRoutes(schema: GraphQLSchema, routes: Record<string, RestRoute>): CompiledRoute[] {
  const models = restModels(schema);
  const compiled = Object.entries(routes).map(([key, route]) => {
    const [typeName, fieldName] = key.split('.') as [string, string];
    const kind = typeName === 'Mutation' ? OperationTypeNode.MUTATION : OperationTypeNode.QUERY;
    const field = (kind === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType())?.getFields()[fieldName];
    if (!field) throw new Error(`REST route ${key} names no field of the schema`);
    // The operation SOFA would run for this route: every field, nested models by id.
    const operation = buildOperationNodeForField({
      kind,
      schema,
      field: fieldName,
      models,
      ignore: sofaSelection.ignore,
      circularReferenceDepth: sofaSelection.depthLimit,
    });
    const paramNames: string[] = [];
    const source = route.path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        paramNames.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return {
      key,
      route,
      pattern: new RegExp(`^${source}$`),
      paramNames,
      field: field as GraphQLField<unknown, unknown>,
      document: { kind: Kind.DOCUMENT, definitions: [operation] } as DocumentNode,
      variables: operation.variableDefinitions ?? [],
    };
  });
  // Fixed paths before patterns (/issues/stix is safe next to /issues/:id).
  return compiled.sort((a, b) => a.paramNames.length - b.paramNames.length);
}

function decodeSegment(segment: string | undefined): string | undefined {
  try {
    return decodeURIComponent(segment ?? '');
  } catch {
    return undefined;
  }
}

/** A route that a path names, with the values of its path parameters. */
interface RouteMatch {
  compiled: CompiledRoute;
  params: Record<string, string>;
}

/** The routes whose path matches, whatever their method, with their decoded parameters. */
function routesAt(routes: CompiledRoute[], path: string): RouteMatch[] {
  const found: RouteMatch[] = [];
  for (const compiled of routes) {
    const m = compiled.pattern.exec(path);
    if (!m) continue;
    const values = m.slice(1).map(decodeSegment);
    // A segment that is not valid percent-encoding names nothing.
    if (values.some((v) => v === undefined)) continue;
    found.push({ compiled, params: Object.fromEntries(compiled.paramNames.map((name, i) => [name, values[i]!])) });
  }
  return found;
}

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

/** SOFA's reading of a value for a variable (its parseVariable): scalars serialised, input objects as given. */
function variableValue(schema: GraphQLSchema, type: TypeNode, value: unknown): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return variableValue(schema, type.type, value);
  if (type.kind === Kind.LIST_TYPE) return (Array.isArray(value) ? value : [value]).map((v) => variableValue(schema, type.type, v));
  const named = schema.getType(type.name.value);
  if (isScalarType(named)) return named.serialize(named === GraphQLBoolean ? value === 'true' || value === true : value);
  if (isInputObjectType(named)) return value && typeof value === 'object' ? value : JSON.parse(value as string);
  return value;
}

/**
 * Variables where SOFA looks: path parameters, then the query string (qs, so repeated names form
 * a list), an empty or missing one falling back to the body's key. The query is the URL's text up
 * to a second `?` or a fragment.
 */
function variablesOf(schema: GraphQLSchema, compiled: CompiledRoute, url: string, params: Record<string, string>, body: Record<string, unknown>) {
  const query = parseQueryString(url.split('#')[0]!.split('?')[1] ?? '') as Record<string, unknown>;
  const variables: Record<string, unknown> = {};
  for (const variable of compiled.variables) {
    const name = variable.variable.name.value;
    const value = name in params ? params[name] : query[name] || body[name];
    if (value === undefined || value === null) continue;
    try {
      variables[name] = variableValue(schema, variable.type, value);
    } catch (err) {
      throw new GraphQLError((err as Error).message, { extensions: { http: { status: 400 } } });
    }
  }
  return variables;
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

/**
 * The routes a request may reach without Yoga's pipeline: the public reads whose answers are JSON
 * of a few kilobytes (the STIX bundle and the OSV record keep Yoga's).
 */
const directRoutes = new Set(['Query.issues', 'Query.issue', 'Query.latestDigest', 'Query.digests', 'Query.digest', 'Query.stats']);

export function useRestGate({ schema, routes, log, version, graphqlEndpoint, viewerOf, bodyHandlers = {}, responseCache }: RestGateOptions): Plugin & {
  directRead: (request: RouteRequest, url: URL) => DirectRead | undefined;
} {
  const routeSchema = restSchema(schema, routes);
  const compiled = compileRoutes(routeSchema, routes);
  const documents = restDocuments({ schema, restSchema: routeSchema, routes, basePath: restBasePath, version, graphqlEndpoint });
  const pages: Record<string, () => Promise<Response>> = {
    '/openapi.json': async () => Response.json((await documents()).openapi),
    '/docs': async () => new Response((await documents()).docs, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  };
  let yoga: Yoga;
  // Misses to keep once every plugin has added its headers, by server context (one per request).
  const toStore = new WeakMap<object, { key: string; ttlSeconds?: number }>();

  /** The cached answer, or undefined after noting the key, so onResponse keeps what the route answers. */
  async function fromCache(request: Request, url: URL, serverContext: object, fetchAPI: { Response: typeof Response }, ttlSeconds?: number) {
    const key = await responseCache?.keyOf(request.headers, url);
    if (!key) return undefined;
    const hit = await responseCache!.replay(key, request, serverContext, fetchAPI.Response);
    if (!hit) toStore.set(serverContext, { key, ttlSeconds });
    return hit;
  }

  const failed = (errors: readonly unknown[]): RouteAnswer => {
    const { status, message, headers, unexpected } = envelopeFor(errors);
    // Errors masked during execution were logged there; these escaped it (the context, the gate itself).
    for (const err of unexpected) if (!(err instanceof GraphQLError)) log.error('unexpected error', { requestId: currentRequestId(), err });
    return errorAnswer(status, message, headers);
  };

  /**
   * The route's answer as bytes, or its error envelope (a bad argument's 400 among them): what the
   * plugin sends as a Response and the direct read (below) writes itself.
   */
  async function run(
    found: RouteMatch,
    request: RouteRequest,
    url: URL,
    viewer: Viewer,
    body: Record<string, unknown>,
    serverContext: object,
  ): Promise<RouteAnswer> {
    const { compiled: match, params } = found;
    try {
      checkRestArguments(match.field, { params, query: url.searchParams, body });
      const variableValues = variablesOf(routeSchema, match, request.url, params, body);
      const enveloped = yoga.getEnveloped({ ...serverContext, request, viewer });
      const contextValue = await enveloped.contextFactory();
      const result = await enveloped.execute({ schema: enveloped.schema, document: match.document, contextValue, variableValues });
      if (result.errors) return failed(result.errors);
      const data = (result.data as Record<string, unknown>)?.[match.field.name];
      // Serialised once, to bytes (Response.json measures the text, then encodes it again to send it).
      // Lower-case names, as Response.json writes them: useHead's copy drops capitalised ones.
      const bytes = Buffer.from(JSON.stringify(data ?? null));
      const headers = { 'content-type': JSON_TYPE, 'content-length': String(bytes.length) };
      return { status: match.route.responseStatus ?? 200, headers, body: bytes, data };
    } catch (err) {
      return failed([err]);
    }
  }

  const asResponse = ({ status, headers, body }: RouteAnswer, fetchAPI: { Response: typeof Response }) =>
    new fetchAPI.Response(body as Uint8Array<ArrayBuffer>, { status, headers });

  /**
   * A GET route that needs no bearer key, run for a request that reached no Yoga plugin
   * (src/http/early-reply.ts): undefined for anything else, which Yoga then handles. The route is
   * matched, its arguments read and checked here as in onRequest below; what Yoga's plugins add
   * around the answer (links, cache, rate limit, request id, CORS) the caller adds.
   */
  function directRead(request: RouteRequest, url: URL): DirectRead | undefined {
    if (request.method !== 'GET' || !url.pathname.startsWith(`${restBasePath}/`)) return undefined;
    const path = url.pathname.slice(restBasePath.length);
    if (pages[path]) return undefined;
    const match = routesAt(compiled, path).find(({ compiled: c }) => c.route.method === 'GET');
    if (!match || match.compiled.route.bearer || !directRoutes.has(match.compiled.key)) return undefined;
    const { route } = match.compiled;
    return {
      ttlSeconds: route.cacheTtlSeconds,
      answer: (serverContext) => run(match, request, url, viewerOf(request), {}, serverContext),
    };
  }

  return {
    directRead,
    onYogaInit({ yoga: instance }) {
      yoga = instance as unknown as Yoga;
    },
    async onRequest({ request, url, endResponse, serverContext, fetchAPI }) {
      if (url.pathname !== restBasePath && !url.pathname.startsWith(`${restBasePath}/`)) return;
      const path = url.pathname.slice(restBasePath.length);
      const page = pages[path];
      if (page) {
        if (request.method !== 'GET') return endResponse(methodNotAllowed(request.method, url.pathname, readMethods));
        return endResponse((await fromCache(request, url, serverContext, fetchAPI)) ?? (await page()));
      }

      const found = routesAt(compiled, path);
      const match = found.find(({ compiled: c }) => c.route.method === request.method);
      if (!match) {
        const allowed = withHead(found.map(({ compiled: c }) => c.route.method));
        if (allowed.length) return endResponse(methodNotAllowed(request.method, url.pathname, allowed));
        return endResponse(errorResponse(404, `No route ${request.method} ${url.pathname} (see ${restBasePath}/docs)`));
      }
      const { route, key } = match.compiled;
      // The same answer for every caller: served from the cache when it holds this URL at this data version.
      if (route.method === 'GET' && !route.bearer) {
        const hit = await fromCache(request, url, serverContext, fetchAPI, route.cacheTtlSeconds);
        if (hit) return endResponse(hit);
      }
      const viewer = viewerOf(request);
      if (route.bearer) {
        try {
          if (!(await hasScope(viewer, route.bearer))) return endResponse(asResponse(failed([scopeRefusal[route.bearer]()]), fetchAPI));
        } catch (err) {
          return endResponse(asResponse(failed([err]), fetchAPI));
        }
      }
      const body = await readJson(request);
      const own = await bodyHandlers[key]?.(request, body ?? { value: undefined });
      if (own) return endResponse(own);
      const args = bodyArguments(request, route, body);
      if (args instanceof Response) return endResponse(args);
      const answer = await run(match, request, url, viewer, args, serverContext);
      (serverContext as RestAnswered).restAnswer = answer.data;
      endResponse(asResponse(answer, fetchAPI));
    },
    // Last but the error envelope: the licence and paging links are on the response by now.
    async onResponse({ request, response, serverContext, setResponse, fetchAPI }) {
      const pending = toStore.get(serverContext);
      if (!pending && !isReplay(serverContext)) return;
      // A HEAD's body is gone already (useHead): nothing to keep.
      if (pending && response.status === 200 && response.body) {
        response = await responseCache!.store(pending.key, request, response, fetchAPI.Response, pending.ttlSeconds);
        setResponse(response);
      }
      response.headers.set('Vary', varyOnEncoding(response.headers.get('vary')));
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
