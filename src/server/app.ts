// Builds the whole HTTP application from a config and a database. No environment reads, no
// listening: main.ts and the tests do that.
import { GraphQLError } from 'graphql';
import packageJson from '../../package.json' with { type: 'json' };
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import type { CORSOptions } from '@whatwg-node/server';
import type { Context, Services } from '../context.js';
import { issueCounter } from '../db/count-cache.js';
import { DataVersionReader } from '../db/data-version.js';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import { bodyLimits, useBodyLimit } from '../http/body-limit.js';
import { callerResolver } from '../http/client-identity.js';
import { dataVersionOf, edgeOf, type HeadersOf, type NodeServerContext } from '../http/edge.js';
import { KnownKeys } from '../keys/api-keys.js';
import { viewerOf } from '../keys/viewer.js';
import { useCompiledExecution } from '../http/compiled-execution.js';
import { useGraphQLLimits } from '../http/graphql-limits.js';
import { useGraphQLParamErrors } from '../http/graphql-params.js';
import { useGraphiQLPage } from '../http/graphiql.js';
import { guarded } from '../http/guard.js';
import { useHead } from '../http/head.js';
import { licenseLink, useFinish } from '../http/finish.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit-store.js';
import { chargeWork, createRateLimiter, useRateLimit } from '../http/rate-limit.js';
import { useOperationCost } from '../http/operation-cost.js';
import { requestCost, rootFieldCost } from '../rest/request-costs.js';
import { earlyReply, type EarlyReply } from '../http/early-reply.js';
import { ExportBuilds } from '../http/export-builds.js';
import { SubscriptionSlots } from '../http/subscription-slots.js';
import { requestIdOf, useRequestId } from '../http/request-id.js';
import { logUnexpected } from '../http/envelope.js';
import { ResponseCache } from '../http/response-cache.js';
import { answerPagingLinks } from '../paging/links.js';
import { useErrorEnvelope } from '../http/error-envelope.js';
import { useRestArguments } from '../rest/arguments.js';
import { useRestBearer } from '../rest/bearer-plugin.js';
import { useRestBody } from '../rest/body-plugin.js';
import { useRestCache } from '../rest/cache-plugin.js';
import { useRestDocuments } from '../rest/documents.js';
import { useRestRoutes } from '../rest/route-plugin.js';
import { restSofa } from '../rest/sofa.js';
import { adminBodyLimits, restBasePath, restRoutes } from '../rest/routes.js';
import { sbomScan } from '../sbom/route.js';
import { schema } from '../schema/index.js';
import { plainRoutes } from './plain-routes.js';

export const exampleQuery = `# secwire: AI-security issues. Press the run button (or Ctrl-Enter).
# Ask for the fields you need; the Docs panel lists them all.
# The same data as REST: /api/v1/issues (see /api/v1/docs).
query LatestIssues {
  issues(limit: 5) {
    meta { total }
    data {
      id
      title
      severity
      issueType
      publishedAt
      cveId
    }
  }
}
`;

const graphqlEndpoint = '/graphql';

const cors = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Link', 'X-Request-Id'],
  // Browsers may reuse a preflight answer for a day instead of asking before every request.
  maxAge: 86400,
} satisfies CORSOptions;

export interface AppServices extends Services {
  /** Where the rate limit counts requests; this process's memory when absent. */
  rateLimitStore?: RateLimitStore;
}

export function createApp(services: AppServices) {
  const { config, db, log } = services;
  const keys = new KnownKeys(config, db.prisma);
  const versions = new DataVersionReader(db.read);
  const responseCache = new ResponseCache(config.responseCacheBytes, versions, `${restBasePath}/`);
  const countIssues = issueCounter(db.read, versions);
  const subscriptionSlots = new SubscriptionSlots({ perClient: config.subscriptionsPerClient, total: config.subscriptionsTotal });
  const callerOf = callerResolver({ trustProxy: config.trustProxy, keys });
  // The caller's viewer, built once per request on its edge context.
  const viewerFor = (request: HeadersOf) => (edgeOf(request).viewer ??= viewerOf({ config, prisma: db.prisma }, request));
  const exports = new ExportBuilds(versions, (request, serverContext) => callerOf(request, serverContext as NodeServerContext), log);
  const plain = plainRoutes(services, exports, graphqlEndpoint, (call, cost) =>
    chargeWork(rateLimiter, call.request, call.serverContext as NodeServerContext, cost),
  );
  const rateLimiter = createRateLimiter({
    limit: config.rateLimitPerMinute,
    store: services.rateLimitStore ?? new MemoryRateLimitStore(),
    callerOf,
    log,
    costOf: (method, url) => plain.cost(method, url) ?? requestCost(method, url),
  });

  const sofa = restSofa({ schema, routes: restRoutes, log });
  // REST under /api/v1: SOFA, with each of its concerns a plugin of its own, in the order they run.
  const rest = [
    useRestRoutes(restRoutes),
    useRestCache(responseCache, versions),
    useRestDocuments({ schema, routes: restRoutes, basePath: restBasePath, version: packageJson.version, graphqlEndpoint, sofaDocument: sofa.openAPIDocument }),
    useRestBearer({ routes: restRoutes, viewerOf: viewerFor, log }),
    useRestBody({ routes: restRoutes, bodyHandlers: { 'Query.scan': sbomScan(services) }, log }),
    useRestArguments({ routeSchema: sofa.routeSchema, routes: restRoutes, log }),
    sofa.plugin,
  ];

  const yoga = createYoga<NodeServerContext, Context>({
    schema,
    graphqlEndpoint,
    // Yoga's health check answers any URL that ends with its endpoint, with any method; the plain
    // routes serve /health instead. A serialised URL never ends with a raw NUL, so Yoga's never fires.
    healthCheckEndpoint: '\u0000',
    landingPage: false,
    // Served by useGraphiQLPage, behind the rate limit.
    graphiql: false,
    cors,
    maskedErrors: {
      // Expected errors (they carry an HTTP status) pass; anything else is logged and masked.
      maskError(error, message) {
        if ((error as GraphQLError).extensions?.http) return error as Error;
        const cause = (error as GraphQLError).originalError ?? error;
        if (isDatabaseUnavailable(cause)) {
          logUnexpected(log, cause);
          const unavailable = serviceUnavailable();
          const path = (error as GraphQLError).path;
          return path ? new GraphQLError(unavailable.message, { path, extensions: unavailable.extensions }) : unavailable;
        }
        if (cause instanceof GraphQLError && !cause.originalError && cause.extensions?.http === undefined && !(error as GraphQLError).path) {
          return error as Error; // request-level GraphQL errors (validation, parsing) are the client's
        }
        logUnexpected(log, cause);
        // Never in development mode either: no stack or library text reaches a client.
        return maskError(error, message, false);
      },
    },
    logging: false,
    // One operation per request: a batch would multiply the work behind one rate-limit slot.
    batching: false,
    // GraphQL's own body limit; useBodyLimit applies the same one to every route before this.
    maxRequestBodySize: bodyLimits.default,
    plugins: [
      // First: a refused request costs no body reading, parsing or database work. (Yoga answers
      // /health and CORS preflights before any of these.)
      useRateLimit(rateLimiter, graphqlEndpoint),
      useRequestId(),
      useHead(),
      useGraphiQLPage({ graphqlEndpoint, title: 'secwire GraphiQL', defaultQuery: exampleQuery }),
      useBodyLimit({ graphqlEndpoint, adminLimits: adminBodyLimits(restRoutes), isAdmin: (request) => viewerFor(request).isAdmin }),
      // Health, readiness, the exports, Atom and TAXII (server/plain-routes.ts).
      plain.plugin(),
      useGraphQLLimits(),
      // Before anything executes (compiled or not): an operation over the budget does no work.
      useOperationCost(rateLimiter, graphqlEndpoint, rootFieldCost),
      useGraphQLParamErrors(),
      useCompiledExecution(log),
      // Before the response cache's onResponse, which keeps an answer with its links.
      useFinish({
        links: (request, response) => {
          const url = new URL(request.url);
          const path = url.pathname;
          if (path !== '/api' && !path.startsWith('/api/') && path !== graphqlEndpoint) return [];
          return [licenseLink, ...answerPagingLinks(url, request, response)];
        },
      }),
      ...rest,
      exports.plugin(),
      // Last: whatever else failed without the envelope gets it.
      useErrorEnvelope(),
    ].map((plugin) => guarded(plugin, log, graphqlEndpoint)),
    // No copy of the server context (a rest pattern would copy every key Yoga put in it, per request).
    context: (initial): Context => ({
      ...services,
      prisma: db.prisma,
      countIssues: (where) =>
        countIssues(
          where,
          dataVersionOf(initial.request, initial, () => versions.current()),
        ),
      newIssues: services.pubsub,
      viewer: viewerFor(initial.request),
      requestId: requestIdOf(initial.request),
      takeSubscriptionSlot: async () => subscriptionSlots.take(await callerOf(initial.request, initial)),
      // Over REST the context is built from a copy of the server context, which finish() does not read.
      chargeWork: (cost) => chargeWork(rateLimiter, initial.request, (edgeOf(initial.request).rest?.serverContext as NodeServerContext) ?? initial, cost),
    }),
  });
  // A node:http server answers cache hits before Yoga (createHttpServer).
  const app: App = Object.assign(yoga, { earlyReply: earlyReply({ responseCache, versions, rateLimiter, cors }) });
  return app;
}

/** The Yoga app, and the cache hits it answers before Yoga over a socket (http/early-reply.ts). */
export type App = YogaServerInstance<NodeServerContext, Context> & { readonly earlyReply: EarlyReply };
