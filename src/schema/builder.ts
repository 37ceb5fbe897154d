// The one Pothos builder. Domain files (issue.ts, digest.ts, ...) add their types and fields to it.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin, { queryFromInfo } from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type { OutputRef } from '@pothos/core';
import { GraphQLError, valueFromASTUntyped, visit, type GraphQLResolveInfo } from 'graphql';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { scopeRefusal, type Scope } from '../keys/viewer.js';

/** The scope a refused field required (the 401 says which key was missing). */
function failedScope(failure: AuthFailure): Scope | undefined {
  if (failure.kind === AuthScopeFailureType.AuthScope) return failure.scope as Scope;
  const children = 'failures' in failure ? failure.failures : [];
  return children.map(failedScope).find(Boolean);
}

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: Context;
  // Who may call a field, from the caller the context worked out; a webhooks field also gets the owner.
  AuthScopes: Record<Scope, boolean>;
  AuthContexts: { webhooks: Context & { webhookOwner: string } };
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({
      admin: ctx.viewer.isAdmin,
      webhooks: async () => {
        const owner = await ctx.viewer.webhookOwner();
        if (owner !== undefined) Object.assign(ctx, { webhookOwner: owner });
        return owner !== undefined;
      },
    }),
    unauthorizedError: (_parent, _ctx, _info, result) => scopeRefusal[failedScope(result.failure) ?? 'webhooks'](),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/**
 * The Prisma `select` for the objects under `path` of this field (e.g. `data` of a `{data, meta}`
 * envelope), to spread into the Prisma call. Typed as `{}` so the call keeps the model's row type:
 * the fields the query selects are the ones that are read.
 */
export function selectionUnder(path: string, context: object, info: GraphQLResolveInfo): {} {
  return queryFromInfo({ context, info, path: [path] });
}

interface EnvelopeOptions<Data, Meta> {
  description: string;
  data: { type: OutputRef<Data> | [OutputRef<Data>]; description?: string };
  meta?: { type: OutputRef<Meta>; description: string };
}

/** A page's data may be a thunk: asking for `meta` alone then runs no row query. */
type Envelope<Data, Meta> = [Meta] extends [never] ? { data: Data } : { data: Data | (() => Promise<Data>); meta: Meta };

/**
 * The REST response shape as a GraphQL type: `{data}`, or `{data, meta}` for a page. The payload
 * keeps its type: a list when `data.type` is `[Ref]`.
 */
export function envelopeRef<Data, Meta = never>(
  name: string,
  options: EnvelopeOptions<Data, Meta> & { data: { type: [OutputRef<Data>] } },
): OutputRef<Envelope<Data[], Meta>>;
export function envelopeRef<Data, Meta = never>(name: string, options: EnvelopeOptions<Data, Meta>): OutputRef<Envelope<Data, Meta>>;
export function envelopeRef<Data, Meta>(name: string, { description, data, meta }: EnvelopeOptions<Data, Meta>): OutputRef<unknown> {
  return builder.objectRef<{ data: unknown; meta?: unknown }>(name).implement({
    description,
    fields: (t) => ({
      // The payload's type is the ref's (the overloads keep it for callers).
      data: t.field({ type: data.type as never, description: data.description, resolve: (p) => (typeof p.data === 'function' ? p.data() : p.data) as never }),
      ...(meta ? { meta: t.field({ type: meta.type as never, description: meta.description, resolve: (p) => p.meta as never }) } : {}),
    }),
  });
}

/** ISO 8601 UTC with milliseconds and Z, as the spec requires for every timestamp. */
builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC with milliseconds, e.g. 2024-01-22T03:30:26.000Z',
  // Rows read past Prisma (db/driver-read.ts) hold Dates already: a copy per timestamp is garbage.
  serialize: (value) => (value instanceof Date ? value : new Date(value as string)).toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (typeof value !== 'string' || Number.isNaN(date.getTime())) throw new GraphQLError('Invalid DateTime');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => {
    // graphql-js would read a variable (or an enum value) inside the literal as missing or as a string.
    const refuse = () => {
      throw new GraphQLError('Variables are not supported inside JSON literals');
    };
    visit(ast, { Variable: refuse, EnumValue: refuse });
    return valueFromASTUntyped(ast);
  },
});
