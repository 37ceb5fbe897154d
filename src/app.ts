// Builds the whole HTTP application from a config and a database. No environment reads, no
// listening: main.ts and the tests do that.
import { GraphQLError } from 'graphql';
import packageJson from '../package.json' with { type: 'json' };
import { createYoga, maskError, type Plugin } from 'graphql-yoga';
import type { Context, Services } from './context.js';
import { isMigrated } from './db/status.js';
import { requireAdminKey } from './http/admin-auth.js';
import { bodyLimits, useBodyLimit } from './http/body-limit.js';
import { KnownKeys } from './http/client-identity.js';
import { useGraphQLLimits } from './http/graphql-limits.js';
import { useGraphQLParamErrors } from './http/graphql-params.js';
import { useGraphiQLPage } from './http/graphiql.js';
import { guarded } from './http/guard.js';
import { useHead } from './http/head.js';
import { useLicenseLink } from './http/license.js';
import { MemoryRateLimitStore } from './http/rate-limit-store.js';
import { useRateLimit } from './http/rate-limit.js';
import { currentRequestId, requestIdOf, useRequestId } from './http/request-id.js';
import { useAdminIngestBody } from './rest/admin-ingest-body.js';
import { useCsvExport } from './rest/csv.js';
import { useApiErrorEnvelope, useRest, useRestBearer } from './rest/sofa.js';
import { restRoutes } from './rest/routes.js';
import { schema } from './schema/index.js';
import { webhookOwner } from './webhooks/manage.js';

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

export function createApp(services: Services) {
  const { config, db, log } = services;
  const rateLimit = useRateLimit({
    limit: config.rateLimitPerMinute,
    store: services.rateLimitStore ?? new MemoryRateLimitStore(),
    keys: new KnownKeys(config, db.prisma),
    trustProxy: config.trustProxy,
    graphqlEndpoint,
    log,
  });

  /** GET /ready: the database answers and every migration is applied. */
  const readiness: Plugin = {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname !== '/ready') return;
      const ready = await isMigrated(db).catch(() => false);
      endResponse(fetchAPI.Response.json({ status: ready ? 'ready' : 'not ready' }, { status: ready ? 200 : 503 }));
    },
  };

  return createYoga<{ requestId?: string }, Context>({
    schema,
    graphqlEndpoint,
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Served by useGraphiQLPage, behind the rate limit.
    graphiql: false,
    cors: {
      origin: '*',
      credentials: false,
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
      exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Link', 'X-Request-Id'],
      // Browsers may reuse a preflight answer for a day instead of asking before every request.
      maxAge: 86400,
    },
    maskedErrors: {
      // Expected errors (they carry an HTTP status) pass; anything else is logged and masked.
      maskError(error, message) {
        if ((error as GraphQLError).extensions?.http) return error as Error;
        const cause = (error as GraphQLError).originalError ?? error;
        if (cause instanceof GraphQLError && !cause.originalError && cause.extensions?.http === undefined && !(error as GraphQLError).path) {
          return error as Error; // request-level GraphQL errors (validation, parsing) are the client's
        }
        log.error('unexpected error', { requestId: currentRequestId(), err: cause });
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
      rateLimit,
      useRequestId(),
      useHead(),
      useGraphiQLPage({ graphqlEndpoint, title: 'secwire GraphiQL', defaultQuery: exampleQuery }),
      useBodyLimit({ config, graphqlEndpoint }),
      useRestBearer({
        schema,
        routes: restRoutes,
        log,
        authenticate: (kind, request) =>
          kind === 'admin' ? requireAdminKey({ config, request }) : webhookOwner({ config, prisma: db.prisma, request }),
      }),
      useGraphQLLimits(),
      useGraphQLParamErrors(),
      readiness,
      useLicenseLink(graphqlEndpoint),
      useAdminIngestBody(),
      useRest({ schema, routes: restRoutes, log, version: packageJson.version, graphqlEndpoint }),
      useCsvExport(services),
      // Last: whatever else under /api failed without the envelope gets it.
      useApiErrorEnvelope(),
    ].map((plugin) => guarded(plugin, log, graphqlEndpoint)),
    context: ({ request }): Context => ({
      ...services,
      prisma: db.prisma,
      request,
      requestId: requestIdOf(request),
    }),
  });
}

export type App = ReturnType<typeof createApp>;
