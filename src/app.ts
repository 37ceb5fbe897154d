// Builds the whole HTTP application from a config and a database. No environment reads, no
// listening: main.ts and the tests do that.
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type Plugin } from 'graphql-yoga';
import type { Context, Services } from './context.js';
import { isMigrated } from './db/status.js';
import { useLicenseLink } from './http/license.js';
import { currentRequestId, requestIdOf, useRequestId } from './http/request-id.js';
import { useApiErrorEnvelope, useRest } from './rest/sofa.js';
import { restRoutes } from './rest/routes.js';
import { schema } from './schema/index.js';

export const exampleQuery = `# secwire: AI-security issues. Try it:
query LatestIssues {
  issues(limit: 5) {
    meta { total }
    data { id title severity issueType publishedAt cveId }
  }
}
`;

export function createApp(services: Services) {
  const { db, log } = services;

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
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    graphiql: { title: 'secwire GraphiQL', defaultQuery: exampleQuery },
    // GraphiQL's assets are served inline rather than from a CDN: it works offline and behind a CSP.
    renderGraphiQL,
    cors: {
      origin: '*',
      credentials: false,
      methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Link', 'X-Request-Id'],
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
    plugins: [
      useRequestId(),
      readiness,
      useLicenseLink('/graphql'),
      useRest({ schema, routes: restRoutes, log }),
      // Last: whatever else under /api failed without the envelope gets it.
      useApiErrorEnvelope(),
    ],
    context: ({ request }): Context => ({
      ...services,
      prisma: db.prisma,
      request,
      requestId: requestIdOf(request),
    }),
  });
}

export type App = ReturnType<typeof createApp>;
