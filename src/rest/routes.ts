// The REST surface: each /api/v1 route is one root field of the GraphQL schema, keyed by its
// schema coordinate. SOFA serves exactly these (nothing else under /api/v1 answers but the
// OpenAPI document and the docs page); adding a route is adding a line here. Paths are relative to
// /api/v1, `:name` is a path parameter, and fixed paths win over patterns (/issues/stix is safe
// next to /issues/:id).
import type { createSofa } from 'sofa-api';
import { restBasePath } from '../api-paths.js';
import { bodyLimits } from '../http/body-limit.js';
import type { Scope } from '../keys/viewer.js';

export type RestRoute = NonNullable<Parameters<typeof createSofa>[0]['routes']>[string] & {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Needs `Authorization: Bearer <key>`: the admin key or a webhook key (documented in the OpenAPI document, with its 401). */
  bearer?: Scope;
  /** A larger body limit for the route's admin (fixed paths only: it applies before the route is matched). */
  adminBodyLimit?: number;
  /** A body that is not `{<name>: ...}` is this argument as a whole (a record, or an array of them). */
  bodyArgument?: string;
  /** A cached answer of this GET route expires after this long even when the data has not changed (it depends on the clock). */
  cacheTtlSeconds?: number;
};

export { restBasePath };

export const restRoutes: Record<`${'Query' | 'Mutation'}.${string}`, RestRoute> = {
  'Query.issues': { method: 'GET', path: '/issues', tags: ['issues'] },
  'Query.issue': { method: 'GET', path: '/issues/:id', tags: ['issues'] },
  'Query.latestDigest': { method: 'GET', path: '/digest/latest', tags: ['digest'] },
  'Query.digests': { method: 'GET', path: '/digests', tags: ['digest'] },
  'Query.digest': { method: 'GET', path: '/digests/:date', tags: ['digest'] },
  // Its counts of the last 24 hours and 7 days move with the clock as well as with the data.
  'Query.stats': { method: 'GET', path: '/stats', tags: ['stats'], cacheTtlSeconds: 60 },
  'Mutation.ingestItems': {
    method: 'POST',
    path: '/admin/ingest',
    tags: ['admin'],
    bearer: 'admin',
    adminBodyLimit: bodyLimits.adminIngest,
    bodyArgument: 'items',
  },
  'Mutation.generateDigest': { method: 'POST', path: '/admin/digests', tags: ['admin'], bearer: 'admin' },
  'Mutation.createApiKey': { method: 'POST', path: '/admin/keys', responseStatus: 201, tags: ['admin'], bearer: 'admin' },
  'Query.sources': { method: 'GET', path: '/admin/sources', tags: ['admin'], bearer: 'admin' },
  'Mutation.reclassifyIssues': { method: 'POST', path: '/admin/reclassify', tags: ['admin'], bearer: 'admin' },
  // A read, so a Query; POST because the stack is a JSON body of top-level arguments.
  'Query.scan': { method: 'POST', path: '/scan', tags: ['scan'] },
  'Query.stixBundle': { method: 'GET', path: '/issues/stix', tags: ['issues'] },
  'Query.osvRecord': { method: 'GET', path: '/issues/:id/osv', tags: ['osv'] },
  'Mutation.createWebhook': { method: 'POST', path: '/webhooks', responseStatus: 201, tags: ['webhooks'], bearer: 'webhooks' },
  'Query.webhooks': { method: 'GET', path: '/webhooks', tags: ['webhooks'], bearer: 'webhooks' },
  'Query.webhook': { method: 'GET', path: '/webhooks/:id', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.updateWebhook': { method: 'PATCH', path: '/webhooks/:id', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.deleteWebhook': { method: 'DELETE', path: '/webhooks/:id', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.rotateWebhookSecret': { method: 'POST', path: '/webhooks/:id/rotate-secret', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.pingWebhook': { method: 'POST', path: '/webhooks/:id/ping', responseStatus: 202, tags: ['webhooks'], bearer: 'webhooks' },
  'Query.webhookDeliveries': { method: 'GET', path: '/webhooks/:webhookId/deliveries', tags: ['webhooks'], bearer: 'webhooks' },
  'Query.webhookFindings': { method: 'GET', path: '/webhooks/:webhookId/findings', tags: ['webhooks'], bearer: 'webhooks' },
  'Query.webhookFindingsVex': { method: 'GET', path: '/webhooks/:webhookId/findings/vex', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.issueStackFeed': { method: 'POST', path: '/webhooks/:webhookId/feed', responseStatus: 201, tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.revokeStackFeed': { method: 'DELETE', path: '/webhooks/:webhookId/feed', tags: ['webhooks'], bearer: 'webhooks' },
  'Mutation.redeliverWebhookDelivery': {
    method: 'POST',
    path: '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    responseStatus: 202,
    tags: ['webhooks'],
    bearer: 'webhooks',
  },
};

/** The larger body limits the admin may use, by full path. */
export function adminBodyLimits(routes: Record<string, RestRoute>): Record<string, number> {
  return Object.fromEntries(Object.values(routes).flatMap((r) => (r.adminBodyLimit ? [[restBasePath + r.path, r.adminBodyLimit]] : [])));
}
