// sofa-api's useSofa inside one Yoga plugin, of the shape of Yoga's own SOFA plugin
// (@graphql-yoga/plugin-sofa): SOFA's router serves the routes of routes.ts with Yoga's context and
// execute, so every plugin, the error masking and the logging apply as to GraphQL. The other REST
// concerns are plugins of their own that run before it (app.ts lists them): the route match with
// its 404 and 405 (route-plugin.ts), the response cache, the documents, the bearer check, the one
// reading of the body and the argument checks. What this plugin adds to Yoga's:
// - the body was read and checked already: SOFA gets a request of its own without it (and without
//   the URL's fragment, which SOFA would read as part of the last query value; a GET without one is
//   handed on as it is, as Yoga's plugin does), and the body's arguments join the variables SOFA
//   took from the path and query (where it looks first) at execute;
// - the answer is kept on the edge context, for the list's paging links;
// - a failure is the API's envelope (failure.ts).
import type { ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { Response as RouterResponse } from 'fets';
import { useSofa } from 'sofa-api';
import { edgeOf, replacingRequest, type RestCall } from '../http/edge.js';
import { errorEnvelope, JSON_TYPE } from '../http/envelope.js';
import { noRoute } from '../http/error-envelope.js';
import type { Logger } from '../log.js';
import { failureOf } from './failure.js';
import { restSchema } from './rest-schema.js';
import { restBasePath, type RestRoute } from './routes.js';

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, Record<string, unknown>>['getEnveloped']>;

export interface RestSofaOptions {
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  log: Logger;
}

const customScalars = { DateTime: { type: 'string', format: 'date-time' }, JSON: {} };

/**
 * SOFA's variables, with the body's arguments where the path and query string gave none. A null
 * is kept: SOFA drops it, but it means something (`"stack": null` stops watching).
 */
function withBodyArguments(variables: ExecutionArgs['variableValues'], body: Record<string, unknown> | undefined) {
  if (!body) return variables;
  const merged = { ...variables };
  for (const name in body) if (merged[name] === undefined && body[name] !== undefined) merged[name] = body[name];
  return merged;
}

export function restSofa({ schema, routes, log }: RestSofaOptions) {
  const routeSchema = restSchema(schema, routes);
  let getEnveloped: (initial: Record<string, unknown>) => Enveloped;
  // The Yoga pipeline and REST call of each operation SOFA runs, by its context value.
  const runs = new WeakMap<object, { enveloped: Enveloped; rest: RestCall }>();
  // Yoga's server context of each request handed to SOFA: SOFA's router gets a context of its own,
  // which it copies per call (a copy of Yoga's, with its node request and response, costs more).
  const serverContexts = new WeakMap<object, Record<string, unknown>>();

  const router = useSofa({
    basePath: restBasePath,
    schema: routeSchema,
    routes,
    customScalars,
    async context(sofaContext) {
      const serverContext = serverContexts.get(sofaContext.request);
      const rest = edgeOf(sofaContext.request).rest!;
      rest.serverContext = serverContext;
      const enveloped = getEnveloped({ ...serverContext, request: sofaContext.request });
      const contextValue = (await enveloped.contextFactory()) as object;
      runs.set(contextValue, { enveloped, rest });
      return contextValue;
    },
    // Through Yoga's envelop execute, on the whole schema (the operation is valid there as well).
    async execute(args: ExecutionArgs) {
      const { enveloped, rest } = runs.get(args.contextValue as object)!;
      const variableValues = withBodyArguments(args.variableValues, rest.bodyArguments);
      const result = (await enveloped.execute({ ...args, variableValues, schema: enveloped.schema })) as ExecutionResult;
      if (!result.errors && result.data) rest.answer = Object.values(result.data)[0];
      return result;
    },
    // In the router's own Response type (fets'), as SOFA's error handler returns it.
    errorHandler(errors) {
      const { status, message, headers } = failureOf(log, errors);
      return new RouterResponse(JSON.stringify(errorEnvelope(status, message)), { status, headers: { ...headers, 'Content-Type': JSON_TYPE } });
    },
  });

  const plugin: Plugin = {
    onYogaInit({ yoga }) {
      getEnveloped = yoga.getEnveloped;
    },
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const rest = edgeOf(request).rest;
      if (!rest || !(rest.key in routes)) return;
      // A GET has no body to hide: without a fragment it is handed on as it is.
      const sent =
        request.method === 'GET' && !request.url.includes('#')
          ? request
          : replacingRequest(request, new fetchAPI.Request(request.url.split('#')[0]!, { method: request.method, headers: request.headers }));
      serverContexts.set(sent, serverContext);
      return Promise.resolve(router.handleRequest(sent, {})).then((response) => endResponse(response ?? noRoute(request.method, url.pathname)));
    },
  };
  return { plugin, routeSchema, openAPIDocument: router.openAPIDocument };
}
