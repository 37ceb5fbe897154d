// Checks a REST request's arguments against the GraphQL argument types of its field before SOFA
// sees them. SOFA would otherwise answer a non-numeric `limit` with GraphQL's own wording
// ("Int cannot represent ...") and a bad enum value with a 500. The messages come from
// src/params.ts, the same ones the issue filters use, so REST, GraphQL and the CSV export
// agree word for word.
import {
  getNamedType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../errors.js';
import { edgeOf } from '../http/edge.js';
import type { Logger } from '../log.js';
import { boolean, integer, number, oneOf, rejectUnknownParameters, single } from '../params.js';
import { restFailure } from './failure.js';
import type { RestRoute } from './routes.js';

function checkValue(name: string, type: GraphQLInputType, value: unknown, fromBody: boolean): void {
  // A list inside an input object (a webhook's stack.packages): an array of checked items.
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) throw badRequest(`${name} must be an array`);
    value.forEach((item, i) => item !== null && item !== undefined && checkValue(`${name}[${i}]`, inner.ofType, item, fromBody));
    return;
  }
  const named = getNamedType(type);
  // A query string is text, so `limit=5` and `active=true` are read as what they spell; a JSON body
  // has types, and "true" there is a string (GraphQL would refuse it in its own words).
  const typed = fromBody && typeof value === 'string' ? Number.NaN : value;
  if (named === GraphQLInt) integer(name, typed);
  else if (named === GraphQLFloat) number(name, typed);
  else if (named === GraphQLBoolean) boolean(name, typed);
  else if (named === GraphQLString && typeof value !== 'string') throw badRequest(`${name} must be a string`);
  else if (isEnumType(named))
    oneOf(
      name,
      named.getValues().map((v) => v.name),
      value,
    );
  else if (isInputObjectType(named)) checkObject(name, named.getFields(), value);
  // IDs and custom scalars are checked by their resolvers and by GraphQL itself.
}

/** An input object (a JSON body's nested object): known keys only, each checked by its type. */
function checkObject(name: string, fields: Record<string, { type: GraphQLInputType }>, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${name} must be an object`);
  for (const [key, item] of Object.entries(value)) {
    const field = fields[key];
    if (!field) throw badRequest(`${name}.${key} is not a known key (expected: ${Object.keys(fields).join(', ')})`);
    if (item !== undefined && item !== null) checkValue(`${name}.${key}`, field.type, item, true);
  }
}

/** SOFA's query-string parser (qs) turns a name repeated more often into an object. */
const MAX_QUERY_REPEATS = 20;

function checkArgument(arg: GraphQLArgument, value: unknown, fromBody: boolean): void {
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  if (isListType(type)) {
    // A query string repeats a name to form a list; JSON has arrays, and GraphQL's coercion of a
    // lone value into a list would hide a client's mistake.
    if (fromBody && !Array.isArray(value)) throw badRequest(`${arg.name} must be an array`);
    if (!fromBody && Array.isArray(value) && value.length > MAX_QUERY_REPEATS) {
      throw badRequest(`${arg.name} must be given at most ${MAX_QUERY_REPEATS} times`);
    }
    for (const item of Array.isArray(value) ? value : [value]) checkValue(arg.name, type.ofType, item, fromBody);
    return;
  }
  checkValue(arg.name, type, single(arg.name, value), fromBody);
}

/**
 * Throws a 400 naming the first bad argument. Arguments are looked up where SOFA looks: path,
 * then query string (repeated names form a list), then the JSON body's top-level keys.
 */
export function checkRestArguments(
  field: GraphQLField<unknown, unknown>,
  { params, query, body }: { params: Record<string, unknown>; query: URLSearchParams; body: Record<string, unknown> },
): void {
  for (const key of query.keys()) {
    // qs (SOFA's parser) turns `a[b]=1` into objects; accept only plain repeated names.
    const bracket = key.indexOf('[');
    if (bracket > 0 && field.args.some((a) => a.name === key.slice(0, bracket))) {
      throw badRequest(`${key.slice(0, bracket)}: repeat the parameter (name=a&name=b) instead of using brackets`);
    }
  }
  const names = field.args.map((a) => a.name).filter((name) => !(name in params));
  rejectUnknownParameters(query, names);
  for (const key of Object.keys(body)) {
    if (!names.includes(key)) throw badRequest(`${key} is not a known key (expected: ${names.join(', ') || 'an empty body'})`);
  }
  for (const arg of field.args) {
    if (arg.name in params) continue;
    // Like SOFA: an empty or missing query value falls back to the body. There only null or a
    // missing key is absent: SOFA hands an empty string on to GraphQL, which would word the error.
    const fromQuery = query.getAll(arg.name);
    const value = fromQuery.length > 1 ? fromQuery : fromQuery[0] || body[arg.name];
    if (value === undefined || value === null) {
      if (isNonNullType(arg.type) && arg.defaultValue === undefined) throw badRequest(`${arg.name} is required`);
      continue;
    }
    checkArgument(arg, value, !fromQuery[0]);
  }
}

/** The argument checks as a REST plugin: the route's field, its path parameters, query string and body's arguments. */
export function useRestArguments(options: { routeSchema: GraphQLSchema; routes: Record<string, RestRoute>; log: Logger }): Plugin {
  const { routeSchema, routes, log } = options;
  const fields = new Map<string, GraphQLField<unknown, unknown>>();
  for (const key of Object.keys(routes)) {
    const [typeName, fieldName] = key.split('.') as [string, string];
    const root = typeName === 'Mutation' ? routeSchema.getMutationType() : routeSchema.getQueryType();
    const field = root?.getFields()[fieldName];
    if (field) fields.set(key, field);
  }
  return {
    onRequest({ request, url, endResponse }) {
      const rest = edgeOf(request).rest;
      const field = rest && fields.get(rest.key);
      if (!rest || !field) return;
      try {
        checkRestArguments(field, { params: rest.params, query: url.searchParams, body: rest.bodyArguments ?? {} });
      } catch (err) {
        endResponse(restFailure(log, [err]));
      }
    },
  };
}
