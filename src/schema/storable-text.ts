// What the database can store of a client's text, decided once for every root field's arguments.
// PostgreSQL refuses U+0000 in text and jsonb, and a lone UTF-16 surrogate in jsonb (its \ud800
// escape); in text it would silently become U+FFFD, not what was sent. So a string holding either,
// anywhere in the arguments (a url, filters.vendor, stack.packages[3], a key or value deep inside
// an SBOM), is a 400 naming where it is, before the resolver runs: on every database, over GraphQL
// and REST alike (REST executes this same schema).
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLFieldConfig, type GraphQLSchema } from 'graphql';
import { badRequest } from '../errors.js';

/**
 * Fields that judge their records' text themselves: an admin ingest refuses the one record that
 * holds such a string and stores the rest (src/ingest/parse.ts).
 */
const ownTextChecks = new Set(['Mutation.ingestItems']);

const loneSurrogate = /\p{Cs}/u;

/** Why a string cannot be stored, or undefined when it can. */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (loneSurrogate.test(text)) return 'must be valid Unicode text (it holds a lone surrogate)';
  return undefined;
}

/** A place in the arguments, with the way back to its root (the path is spelt only for an error). */
interface Place {
  value: unknown;
  key: string | number;
  parent?: Place;
}

function pathOf(place: Place): string {
  let path = '';
  for (let p: Place | undefined = place; p; p = p.parent) path = (typeof p.key === 'number' ? `[${p.key}]` : p.parent ? `.${p.key}` : p.key) + path;
  return path;
}

/** Throws a 400 naming the first string in the arguments that cannot be stored. Iterative: a JSON argument may be deeply nested. */
export function checkStorableText(args: Record<string, unknown>): void {
  const places: Place[] = Object.entries(args).map(([key, value]) => ({ value, key }));
  for (let place = places.pop(); place; place = places.pop()) {
    const { value } = place;
    if (typeof value === 'string') {
      const why = unstorable(value);
      if (why) throw badRequest(`${pathOf(place)} ${why}`);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) places.push({ value: value[i], key: i, parent: place });
    } else if (value && typeof value === 'object') {
      const keys = Object.keys(value);
      for (const key of keys) {
        const why = unstorable(key);
        if (why) throw badRequest(`A key of ${pathOf(place)} ${why}`);
      }
      for (let i = keys.length - 1; i >= 0; i--) places.push({ value: (value as Record<string, unknown>)[keys[i]!], key: keys[i]!, parent: place });
    }
  }
}

/** The schema with every root field's arguments checked by checkStorableText before it resolves. */
export function withStorableText(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    // A subscription's arguments only filter what it is sent; its resolve runs once per event.
    [MapperKind.QUERY_ROOT_FIELD]: (field, fieldName) => checked(field, `Query.${fieldName}`),
    [MapperKind.MUTATION_ROOT_FIELD]: (field, fieldName) => checked(field, `Mutation.${fieldName}`),
  });
}

function checked(field: GraphQLFieldConfig<unknown, unknown>, coordinate: string): GraphQLFieldConfig<unknown, unknown> {
  if (!field.args || Object.keys(field.args).length === 0 || ownTextChecks.has(coordinate)) return field;
  const resolve = field.resolve ?? defaultFieldResolver;
  return {
    ...field,
    resolve(source, args, context, info) {
      checkStorableText(args);
      return resolve(source, args, context, info);
    },
  };
}
