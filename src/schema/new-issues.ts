// Subscription.newIssues: every batch of newly published issues that match a filter. GraphQL
// clients subscribe over SSE; the webhook dispatcher consumes the same field once per distinct
// webhook filter, so a webhook receives exactly what a subscriber with its filters would.
import { filter, map, pipe, Repeater } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Context } from '../context.js';
import type { Issue } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';
import { matchingIssueIds, readServedIssues } from '../issues/reads.js';
import type { NewIssuesEvent } from '../pubsub.js';
import { normaliseFilters, type IssueFilters } from '../webhooks/filters.js';
import { builder } from './builder.js';
import { issueColumns } from './columns.js';
import { IssueRef } from './issue-type.js';
import { WebhookFiltersInput } from './webhook.js';

interface MatchedBatch {
  eventId: string;
  issueIds: string[];
  /** The event and the filter: subscribers with the same key share their queries. */
  shareKey: string;
}

/**
 * Every subscriber hears every batch; those with the same filter (and selection) run its queries
 * once: the first one's promise is kept for a minute, long enough for the slowest reader.
 */
const shared = new LRUCache<string, Promise<unknown>>({ max: 10_000, ttl: 60_000 });

function once<T>(key: string, run: () => Promise<T>): Promise<T> {
  let result = shared.get(key) as Promise<T> | undefined;
  if (result) return result;
  result = run();
  shared.set(key, result);
  // A failed query is not shared beyond the subscribers already waiting for it.
  result.catch(() => shared.get(key) === result && shared.delete(key));
  return result;
}

// ---- types

const NewIssuesBatch = builder.objectRef<MatchedBatch>('NewIssuesBatch').implement({
  description: 'The issues of one publish batch that match the subscription filter.',
  fields: (t) => ({
    eventId: t.exposeString('eventId', { description: 'Id of the publish batch; the same for every subscriber.' }),
    issues: t.field({
      type: [IssueRef],
      description: 'The matching new issues, newest first.',
      resolve: (batch, _args, { db }, info) => {
        // The columns of the selection (columns.ts), chosen once per subscription document.
        const columns = issueColumns(info, []);
        return once(`${batch.shareKey}\n${columns.text}`, () => readServedIssues<Issue>(db.read, columns, batch.issueIds));
      },
    }),
  }),
});

/** The ids of the event's issues that are served and match; one small indexed query per event. */
async function matchEvent(ctx: Context, filters: IssueFilters, event: NewIssuesEvent): Promise<MatchedBatch | null> {
  const ids = event.issueIds.filter(isUuid);
  if (ids.length === 0) return null;
  const shareKey = `${event.eventId}\n${JSON.stringify(filters)}`;
  const matched = await once(shareKey, () => matchingIssueIds(ctx.db.read, filters, ids));
  return matched.length ? { eventId: event.eventId, issueIds: matched, shareKey } : null;
}

/**
 * The stream of one client's subscription: it holds one of the client's slots until it ends, and
 * ends by itself after `idleMs` without a message (a client that still wants it subscribes again).
 * It also ends, completed, once the server starts stopping: its client reconnects at once, through
 * the load balancer to another instance, rather than being cut when the drain's time runs out.
 */
function bounded<T>(source: AsyncIterable<T>, release: () => void, idleMs: number, stopping?: AbortSignal): AsyncIterable<T> {
  const stream = new Repeater<T>(async (push, stop) => {
    const iterator = source[Symbol.asyncIterator]();
    const idle = setTimeout(stop, idleMs);
    const end = () => stop();
    if (stopping?.aborted) end();
    else stopping?.addEventListener('abort', end, { once: true });
    const stopped = stop.then(() => ({ done: true as const, value: undefined }));
    try {
      for (;;) {
        const step = await Promise.race([iterator.next(), stopped]);
        if (step.done) break;
        idle.refresh();
        await push(step.value);
      }
    } finally {
      clearTimeout(idle);
      stopping?.removeEventListener('abort', end);
      release();
      stop();
      await iterator.return?.();
    }
  });
  // A stream ended before it was first read never runs the code above (release is idempotent).
  const end = stream.return.bind(stream);
  stream.return = (value) => (release(), end(value));
  return stream;
}

// ---- subscriptions

builder.subscriptionField('newIssues', (t) =>
  t.field({
    type: NewIssuesBatch,
    description:
      'Newly published issues matching the filter, one message per publish batch (batches with no match are skipped). ' +
      'Subscribe over SSE (Accept: text/event-stream).',
    args: { filter: t.arg({ type: WebhookFiltersInput, description: 'Optional filters: severity, issueType, vendor, llmSpecific.' }) },
    subscribe: async (_root, args, ctx) => {
      const filters = normaliseFilters(args.filter);
      const release = await ctx.takeSubscriptionSlot?.();
      // Repeater-based operators, so a client going away ends the pub/sub listener at once.
      const batches = pipe(
        ctx.newIssues.subscribe('newIssues'),
        map((event: NewIssuesEvent) => matchEvent(ctx, filters, event)),
        filter((batch): batch is MatchedBatch => batch !== null),
      );
      return release ? bounded(batches, release, ctx.config.subscriptionIdleMs, ctx.stopping) : batches;
    },
    resolve: (batch) => batch,
  }),
);
