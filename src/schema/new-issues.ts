// Subscription.newIssues: every batch of newly published issues that match a filter. GraphQL
// clients subscribe over SSE; the webhook dispatcher consumes the same field once per distinct
// webhook filter, so a webhook receives exactly what a subscriber with its filters would.
import { filter, map, pipe } from 'graphql-yoga';
import type { Context } from '../context.js';
import { isUuid } from '../http/params.js';
import { issueOrder } from '../issues/filters.js';
import { servedIssue } from '../issues/served.js';
import type { NewIssuesEvent } from '../pubsub.js';
import { filtersWhere, normaliseFilters, type IssueFilters } from '../webhooks/filters.js';
import { builder } from './builder.js';
import { WebhookFiltersInput } from './webhook.js';

interface MatchedBatch {
  eventId: string;
  issueIds: string[];
}


// ---- types

const NewIssuesBatch = builder.objectRef<MatchedBatch>('NewIssuesBatch').implement({
  description: 'The issues of one publish batch that match the subscription filter.',
  fields: (t) => ({
    eventId: t.exposeString('eventId', { description: 'Id of the publish batch; the same for every subscriber.' }),
    issues: t.prismaField({
      type: ['Issue'],
      description: 'The matching new issues, newest first.',
      resolve: (query, batch, _args, { prisma }) =>
        prisma.issue.findMany({
          ...query,
          where: { ...servedIssue, id: { in: batch.issueIds } },
          orderBy: issueOrder,
        }),
    }),
  }),
});

/** The ids of the event's issues that are served and match; one small indexed query per event. */
async function matchEvent(ctx: Context, filters: IssueFilters, event: NewIssuesEvent): Promise<MatchedBatch | null> {
  const ids = event.issueIds.filter(isUuid);
  if (ids.length === 0) return null;
  const rows = await ctx.prisma.issue.findMany({
    // filtersWhere already keeps to served issues.
    where: { AND: [filtersWhere(filters), { id: { in: ids } }] },
    select: { id: true },
  });
  return rows.length ? { eventId: event.eventId, issueIds: rows.map((r) => r.id) } : null;
}

// ---- subscriptions

builder.subscriptionField('newIssues', (t) =>
  t.field({
    type: NewIssuesBatch,
    description:
      'Newly published issues matching the filter, one message per publish batch (batches with no match are skipped). ' +
      'Subscribe over SSE (Accept: text/event-stream).',
    args: { filter: t.arg({ type: WebhookFiltersInput, description: 'Optional filters: severity, issueType, vendor, llmSpecific.' }) },
    subscribe: (_root, args, ctx) => {
      const filters = normaliseFilters(args.filter);
      // Repeater-based operators, so a client going away ends the pub/sub listener at once.
      return pipe(
        ctx.pubsub.subscribe('newIssues'),
        map((event: NewIssuesEvent) => matchEvent(ctx, filters, event)),
        filter((batch): batch is MatchedBatch => batch !== null),
      );
    },
    resolve: (batch) => batch,
  }),
);
