// Subscription.newIssues as the webhook dispatcher consumes it: graphql's own subscribe over the
// schema, selecting every field of the Issue type REST serves (not the graphqlOnly ones), so a
// webhook receives the REST Issue shape of exactly what a subscriber with its filters would.
import { randomUUID } from 'node:crypto';
import { map } from 'graphql-yoga';
import { parse, subscribe, type ExecutionResult, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { Context, Services } from '../context.js';
import { issueCounter } from '../db/count-cache.js';
import { DataVersionReader } from '../db/data-version.js';
import { noViewer } from '../keys/viewer.js';
import { createDispatcher, type DispatchBatch, type DispatcherOptions, type IssueStream } from '../webhooks/dispatcher.js';
import { schema as publicSchema } from './index.js';

function webhookIssueStream(schema: GraphQLSchema, services: Services): IssueStream {
  const issue = schema.getType('Issue') as GraphQLObjectType;
  const fields = Object.values(issue.getFields())
    .filter((f) => !f.extensions?.graphqlOnly)
    .map((f) => f.name);
  const document = parse(`subscription WebhookDispatch($filter: WebhookFiltersInput) {
    newIssues(filter: $filter) { eventId issues { ${fields.join(' ')} } }
  }`);
  // The subscription counts nothing; the context only has to offer it.
  const countIssues = issueCounter(services.db.read, new DataVersionReader(services.db.read));
  return async (filters, source) => {
    const contextValue: Context = {
      ...services,
      prisma: services.db.prisma,
      countIssues,
      newIssues: source,
      viewer: noViewer,
      requestId: `dispatcher-${randomUUID()}`,
    };
    const result = await subscribe({ schema, document, variableValues: { filter: filters }, contextValue });
    if (!(Symbol.asyncIterator in result)) throw new Error(result.errors?.[0]?.message ?? 'subscription refused');
    // Repeater-based: ending the stream ends the subscription at once, even while it waits.
    const batches = map(({ data, errors }: ExecutionResult) => {
      if (errors?.length || !data) throw new Error(errors?.[0]?.message ?? 'empty subscription result');
      return data.newIssues as DispatchBatch;
    });
    return batches(result)[Symbol.asyncIterator]();
  };
}

/** The webhook dispatcher over the public schema, as main.ts runs it. */
export function createWebhookDispatcher(services: Services, options?: DispatcherOptions) {
  return createDispatcher(services, webhookIssueStream(publicSchema, services), options);
}
