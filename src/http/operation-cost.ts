// The rest of a GraphQL request's cost. The rate limit (rate-limit.ts) counts one unit at the door,
// before the body is read; once the operation is parsed and valid, and before anything runs, it
// costs what its root fields cost by the one table (rest/request-costs.ts, handed in as
// `costOfField`), so a scan through /graphql spends what POST /api/v1/scan does, and several root
// fields in one document add up. The units beyond the first are counted here, all or none; over
// the budget, nothing executes and the answer is the door's 429 (same body, code and headers).
// Subscriptions cost their one unit. REST routes execute through the same hook: their path priced
// them at the door, so they are passed over.
import {
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { NodeServerContext } from './edge.js';
import { noteRateLimit } from './finish.js';
import { rateLimited, type RateLimiter } from './rate-limit.js';

/** The units one root field spends, given its arguments as coerced. */
export type FieldCost = (field: string, args: Record<string, unknown>) => number;

/** What the operation's root fields cost together (at least 1); 1 when its variables do not coerce (then nothing runs). */
export function operationCost(args: ExecutionArgs, costOfField: FieldCost): number {
  const { schema, document, operationName, variableValues } = args;
  const operation = getOperationAST(document, operationName);
  const root = operation && (operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : null);
  if (!operation || !root) return 1;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  if (coerced.errors) return 1;
  const variables = coerced.coerced;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const included = (node: Parameters<typeof getDirectiveValues>[1]) =>
    getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;

  let total = 0;
  // Each response key counts once, as it executes once (`{ scan scan }` is one scan).
  const seen = new Set<string>();
  const visit = (selectionSet: SelectionSetNode, type: GraphQLObjectType) => {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        if (seen.has(key)) continue;
        seen.add(key);
        const definition = type.getFields()[selection.name.value];
        let fieldArgs: Record<string, unknown> = {};
        try {
          if (definition) fieldArgs = getArgumentValues(definition, selection, variables);
        } catch {
          // Arguments that do not coerce fail that field; it is priced at its defaults.
        }
        total += costOfField(selection.name.value, fieldArgs);
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet, type);
      }
    }
  };
  visit(operation.selectionSet, root);
  return Math.max(1, total);
}

export function useOperationCost(limiter: RateLimiter | undefined, graphqlEndpoint: string, costOfField: FieldCost): Plugin {
  if (!limiter) return {};
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as NodeServerContext & { request: Request };
      if (new URL(context.request.url).pathname !== graphqlEndpoint) return;
      const cost = operationCost(args, costOfField);
      if (cost <= 1) return;
      const checked = await limiter.chargeRest(context.request, context, cost);
      if (!checked) return;
      const { headers, refused } = checked;
      // Yoga's context is the request's server context, which finish() reads the headers from.
      noteRateLimit(context, headers);
      if (refused) {
        setResultAndStopExecution({ errors: [rateLimited(refused, headers)] });
      }
    },
  };
}
