// The schema the REST routes are built from: only the root fields that have a route (and no
// subscriptions), and no field marked graphqlOnly (a route selects every field of a type, so REST
// would gain keys).
import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { RestRoute } from './routes.js';

export function restSchema(schema: GraphQLSchema, routes: Record<string, RestRoute>): GraphQLSchema {
  const pick = (type: GraphQLObjectType | null | undefined) => {
    if (!type) return undefined;
    const config = type.toConfig();
    const fields = Object.fromEntries(Object.entries(config.fields).filter(([name]) => `${type.name}.${name}` in routes));
    return Object.keys(fields).length ? new GraphQLObjectType({ ...config, fields }) : undefined;
  };
  const rootOnly = new GraphQLSchema({ query: pick(schema.getQueryType()), mutation: pick(schema.getMutationType()) });
  // Pruned: a type only a dropped field used (IssueClassification) would linger in the OpenAPI document.
  return pruneSchema(mapSchema(rootOnly, { [MapperKind.OBJECT_FIELD]: (field) => (field.extensions?.graphqlOnly ? null : field) }));
}
