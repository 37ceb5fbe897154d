// The types SOFA treats as models (its extractsModels): an object type with an `id` field that
// the Query type both lists (a field named as its plural, no required argument) and fetches one of
// (a field named as it, with `id` as its only argument). A route's operation selects a model nested
// in another by its id only. Worked out here so the routes compile without loading sofa-api, which
// only the OpenAPI document needs (documents.ts); test/rest-internals.test.ts checks it gives SOFA's list.
import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLNamedType, type GraphQLSchema, type GraphQLType } from 'graphql';

const hasId = (type: GraphQLNamedType) => isObjectType(type) && !!type.getFields().id;

/** SOFA compares names in kebab case, which ignores case and the boundaries between words. */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

const isList = (type: GraphQLType): boolean => isListType(type) || (isNonNullType(type) && isListType(type.ofType));

export function restModels(schema: GraphQLSchema): string[] {
  const found = new Map<string, { list: boolean; single: boolean }>();
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    const named = getNamedType(field.type);
    if (!hasId(named)) continue;
    const model = found.get(named.name) ?? { list: false, single: false };
    found.set(named.name, model);
    if (isList(field.type)) model.list ||= sameName(field.name, `${named.name}s`) && !field.args.some((arg) => isNonNullType(arg.type));
    else model.single ||= sameName(field.name, named.name) && field.args.length === 1 && field.args[0]!.name === 'id';
  }
  return [...found].filter(([, { list, single }]) => list && single).map(([name]) => name);
}
