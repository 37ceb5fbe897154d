// REST at /api/v1, derived from the GraphQL schema by SOFA and run inside Yoga: the same context,
// the same execute (so the same plugins, error masking and logging), one process, one port.
//
// What SOFA 0.18 does not do for us (DESIGN.md section 4), and this file does:
// - SOFA turns every root field into a route (plus /webhook routes); it gets a schema cut down to
//   the fields in routes.ts, and requests reach it only when they match one of those routes, so
//   unknown paths and trailing slashes are 404 envelopes, wrong methods 405s with Allow.
// - Its default error body is {errors} with 500 for most client mistakes; errors here become the
//   {error: {message, status}} envelope, and arguments are checked against their GraphQL types
//   first (arguments.ts) so a bad value is a 400 in our own words.
import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import { GraphQLError, GraphQLObjectType, GraphQLSchema, type ExecutionArgs, type GraphQLField } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { createSofaRouter, createSofa } from 'sofa-api';
import { methodNotAllowed, readMethods, withHead } from '../http/methods.js';
import { currentRequestId, replacingRequest } from '../http/request-id.js';
import type { Logger } from '../log.js';
import { checkRestArguments } from './arguments.js';
import { renderDocs } from './docs.js';
import { envelopeFor, errorResponse } from '../http/envelope.js';
import { buildOpenAPI } from './openapi.js';
import { restBasePath, type RestRoute } from './routes.js';

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, Record<string, unknown>>['getEnveloped']>;

interface CompiledRoute {
  key: string;
  method: string;
  pattern: RegExp;
  paramNames: string[];
  field: GraphQLField<unknown, unknown>;
  bearer: RestRoute['bearer'];
}

/**
 * The schema SOFA sees: only the root fields that have a route (and no subscriptions), and no
 * field marked graphqlOnly (SOFA selects every field of a type, so REST would gain keys).
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

function compileRoutes(schema: GraphQLSchema, routes: Record<string, RestRoute>): CompiledRoute[] {
  const compiled = Object.entries(routes).map(([key, route]) => {
    const [typeName, fieldName] = key.split('.') as [string, string];
    const type = typeName === 'Mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`REST route ${key} names no field of the schema`);
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
      method: route.method,
      pattern: new RegExp(`^${source}$`),
      paramNames,
      field: field as GraphQLField<unknown, unknown>,
      bearer: route.bearer,
    };
  });
  // Fixed paths before patterns, as SOFA's router orders them.
  return compiled.sort((a, b) => a.paramNames.length - b.paramNames.length);
}

function decodeSegment(segment: string | undefined): string | undefined {
  try {
    return decodeURIComponent(segment ?? '');
  } catch {
    return undefined;
  }
}

/** The routes whose path matches, whatever their method, with their decoded parameters. */
function routesAt(routes: CompiledRoute[], path: string) {
  const found: { route: CompiledRoute; params: Record<string, string> }[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    const values = m.slice(1).map(decodeSegment);
    // A segment that is not valid percent-encoding names nothing.
    if (values.some((v) => v === undefined)) continue;
    found.push({ route, params: Object.fromEntries(route.paramNames.map((name, i) => [name, values[i]!])) });
  }
  return found;
}

function matchRoute(routes: CompiledRoute[], method: string, path: string) {
  return routesAt(routes, path).find(({ route }) => route.method === method);
}

const hasBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH';

const jsonType = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

async function jsonBody(request: Request): Promise<Record<string, unknown> | Response> {
  if (!hasBody(request.method)) return {};
  const text = await request.clone().text();
  if (!text) return {};
  if (!jsonType.test(request.headers.get('content-type') ?? '')) return errorResponse(415, 'The request body must be sent as Content-Type: application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorResponse(400, 'The request body must be JSON');
  }
  // SOFA reads arguments as the body's keys; any other JSON (null, a list, a number) would reach it
  // as is and come back as a JavaScript error message.
  if (!value || typeof value !== 'object' || Array.isArray(value)) return errorResponse(400, 'The request body must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * SOFA reads the query from the URL text, fragment included (`?limit=1#frag` gives limit
 * "1#frag"); a fragment is never part of what a server is asked, so it is dropped.
 */
async function withoutFragment(request: Request, url: URL): Promise<Request> {
  if (!url.hash) return request;
  const body = hasBody(request.method) ? await request.clone().text() : undefined;
  return replacingRequest(request, new Request(request.url.slice(0, request.url.indexOf('#')), { method: request.method, headers: request.headers, body }));
}

export interface RestOptions {
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  log: Logger;
  /** The API version shown in the OpenAPI document. */
  version: string;
  /** Where GraphQL (and GraphiQL) is served, for the docs page. */
  graphqlEndpoint: string;
}

export function useRest({ schema, routes, log, version, graphqlEndpoint }: RestOptions): Plugin {
  const compiled = compileRoutes(schema, routes);
  let getEnveloped: (initialContext: Record<string, unknown>) => Enveloped;
  const envelopedByContext = new WeakMap<object, Enveloped>();

  const router = createSofaRouter(
    createSofa({
      basePath: restBasePath,
      schema: restSchema(schema, routes),
      routes,
      customScalars: { DateTime: { type: 'string', format: 'date-time' }, JSON: {} },
      // SOFA's own /openapi.json and /docs (Swagger UI from a CDN) are never reached: requests get
      // here only for routes of the table. The completed document is served below.
      async context(serverContext) {
        const enveloped = getEnveloped(serverContext as unknown as Record<string, unknown>);
        const contextValue = await enveloped.contextFactory(serverContext);
        envelopedByContext.set(contextValue, enveloped);
        return contextValue;
      },
      // Yoga's execute, with its plugins, over the full schema (the cut-down one only names routes).
      execute: ((args: ExecutionArgs) => {
        const enveloped = envelopedByContext.get(args.contextValue as object);
        if (!enveloped) throw new Error('REST execute called without a Yoga context');
        return enveloped.execute({ ...args, schema: enveloped.schema });
      }) as never,
      errorHandler(errors) {
        const { status, message, headers, unexpected } = envelopeFor(errors);
        // Errors masked during execution were logged there; these escaped it (context, SOFA itself).
        for (const err of unexpected) {
          if (!(err instanceof GraphQLError)) log.error('unexpected error', { requestId: currentRequestId(), err });
        }
        return errorResponse(status, message, headers) as never;
      },
    }),
  );
  const openapi = buildOpenAPI(router.openAPIDocument, { schema, routes, basePath: restBasePath, version });
  const docs = renderDocs(openapi, { basePath: restBasePath, graphqlEndpoint });
  const pages: Record<string, () => Response> = {
    '/openapi.json': () => Response.json(openapi),
    '/docs': () => new Response(docs, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  };

  return {
    onYogaInit({ yoga }) {
      getEnveloped = yoga.getEnveloped as never;
    },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== restBasePath && !url.pathname.startsWith(`${restBasePath}/`)) return;
      const path = url.pathname.slice(restBasePath.length);
      const page = pages[path];
      if (page) return endResponse(request.method === 'GET' ? page() : methodNotAllowed(request.method, url.pathname, readMethods));

      const match = matchRoute(compiled, request.method, path);
      if (!match) {
        const allowed = withHead(routesAt(compiled, path).map(({ route }) => route.method));
        if (allowed.length) return endResponse(methodNotAllowed(request.method, url.pathname, allowed));
        return endResponse(errorResponse(404, `No route ${request.method} ${url.pathname} (see ${restBasePath}/docs)`));
      }

      const body = await jsonBody(request);
      if (body instanceof Response) return endResponse(body);
      try {
        checkRestArguments(match.route.field, { params: match.params, query: url.searchParams, body });
      } catch (err) {
        const { status, message } = envelopeFor([err]);
        return endResponse(errorResponse(status, message));
      }
      endResponse(await router.handleRequest(await withoutFragment(request, url), serverContext as never));
    },
  };
}

/**
 * Routes that need a bearer key refuse a missing or wrong one before the body is parsed or its
 * arguments checked, so an anonymous client learns nothing from argument errors. (Only the body
 * limit comes earlier.) The resolvers check again: GraphQL reaches them without this plugin.
 */
export function useRestBearer({ schema, routes, authenticate, log }: {
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  authenticate: (kind: NonNullable<RestRoute['bearer']>, request: Request) => unknown;
  log: Logger;
}): Plugin {
  const compiled = compileRoutes(schema, routes);
  return {
    async onRequest({ request, url, endResponse }) {
      if (!url.pathname.startsWith(`${restBasePath}/`)) return;
      const bearer = matchRoute(compiled, request.method, url.pathname.slice(restBasePath.length))?.route.bearer;
      if (!bearer) return;
      try {
        await authenticate(bearer, request);
      } catch (err) {
        const { status, message, headers, unexpected } = envelopeFor([err]);
        for (const e of unexpected) log.error('unexpected error', { requestId: currentRequestId(), err: e });
        endResponse(errorResponse(status, message, headers));
      }
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
