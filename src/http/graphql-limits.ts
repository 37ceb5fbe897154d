// Limits on the shape of a GraphQL document, checked while parsing and validating (before anything
// executes), with graphql-armor. Anything over a limit is a 400 with a GraphQL error naming it.
//
// Sized to this schema: real selections are at most 4 levels deep (a list envelope, its items,
// their fields), and a REST operation (SOFA selects every field of the result) is a few hundred
// tokens at most. The depth limit also covers introspection, so nothing hides a deep query under
// `__schema`; GraphiQL's own introspection query is 15 levels deep (its TypeRef fragment nests
// `ofType` seven times), which sets the limit. Cyclic introspection (`fields { type { fields ...`)
// is refused by graphql-js's MaxIntrospectionDepthRule, part of the standard validation.
// Error messages never carry "Did you mean ...?" hints, which would map the schema for a prober.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const graphqlLimits = {
  /** Nesting depth, counting the fields inside fragments where they are spread. */
  maxDepth: 15,
  /** Aliased fields per operation: aliases are how one request asks for a field many times. */
  maxAliases: 15,
  /** Lexical tokens per document. */
  maxTokens: 1000,
  /** graphql-armor's cost (objects 2, scalars 1, each level multiplies by 1.5); introspection's own is not counted. */
  maxCost: 5000,
  /** Directives per operation (@include and @skip are the only ones clients use here). */
  maxDirectives: 10,
  /**
   * Root fields whose work grows with their arguments (a scan of a thousand entries, a STIX bundle
   * of a hundred issues): one of each per request. Under aliases, fifteen scans in one request held
   * every database connection at once.
   */
  onceOnly: ['scan', 'stixBundle'],
} as const;

// Documents refused by a limit. Each is a 400 whatever the client accepts (Yoga answers other
// request errors with 200 to `Accept: application/json`, as the GraphQL-over-HTTP spec suggests for
// that type, and marks parse errors that way after every plugin has seen them, so the mark is
// corrected when the response is built).
const refused = new WeakSet<GraphQLError>();

function refuse(error: GraphQLError): void {
  refused.add(error);
  (error.extensions as Record<string, unknown>).http = { status: 400, spec: false };
}

const onReject = [(_context: unknown, error: GraphQLError) => refuse(error)];

/** Removes graphql-js's "Did you mean ...?" hints, which map the schema for whoever probes it. */
export const withoutSuggestions = (message: string) => message.replace(/\s*Did you mean [^?]*\?/g, '');

/** A second response key (alias) for one of the onceOnly root fields is refused. */
function onceOnlyFields(context: ValidationContext): ASTVisitor {
  const keys = new Map<string, Set<string>>();
  const limited: readonly string[] = graphqlLimits.onceOnly;
  return {
    Field(node) {
      const name = node.name.value;
      if (!limited.includes(name) || context.getParentType() !== context.getSchema().getQueryType()) return;
      const seen = keys.get(name) ?? new Set<string>();
      keys.set(name, seen.add(node.alias?.value ?? name));
      if (seen.size !== 2) return;
      const error = new GraphQLError(`At most one ${name} field per request; send one request per ${name}`, { nodes: node });
      refuse(error);
      context.reportError(error);
    },
  };
}

export function useGraphQLLimits(): Plugin {
  const armor = EnvelopArmorPlugin({
    blockFieldSuggestion: { enabled: true, mask: '' },
    maxDepth: { n: graphqlLimits.maxDepth, ignoreIntrospection: false, flattenFragments: true, onReject },
    maxAliases: { n: graphqlLimits.maxAliases, onReject },
    maxTokens: { n: graphqlLimits.maxTokens, onReject },
    costLimit: { maxCost: graphqlLimits.maxCost, ignoreIntrospection: true, flattenFragments: true, onReject },
    maxDirectives: { n: graphqlLimits.maxDirectives, onReject },
  }) as Plugin;
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(armor);
    },
    onValidate({ addValidationRule }) {
      addValidationRule(onceOnlyFields);
      return ({ valid, result }) => {
        // graphql-js's own guard against cyclic introspection is an abuse limit too.
        if (!valid) for (const error of result) if (/introspection depth/i.test(error.message)) refuse(error);
      };
    },
    onResultProcess({ result }) {
      if (Symbol.asyncIterator in result) return;
      for (const single of Array.isArray(result) ? result : [result]) {
        const errors = (single.errors ?? []) as GraphQLError[];
        errors.forEach((error, i) => {
          if (refused.has(error)) (error.extensions as { http: { spec: boolean } }).http.spec = false;
          // graphql-armor hides suggestions in validation errors; variable values are checked later,
          // while executing, and graphql-js suggests there too ("Did you mean the enum value ...?").
          const message = withoutSuggestions(error.message);
          // A compiled query's errors (graphql-jit) have a read-only message: those are copied.
          if (message !== error.message) errors[i] = withMessage(error, message);
        });
      }
    },
  };
}

/** The same error with another message (every other property, the prototype too, kept). */
function withMessage(error: GraphQLError, message: string): GraphQLError {
  const properties = Object.getOwnPropertyDescriptors(error);
  return Object.create(Object.getPrototypeOf(error) as object, {
    ...properties,
    message: { value: message, enumerable: true, writable: true, configurable: true },
  }) as GraphQLError;
}
