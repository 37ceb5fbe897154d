// The OpenAPI document and the docs page, built at their first request. sofa-api's router (with
// fets and typebox, about 300 modules) describes the routes, and it is needed for nothing else: an
// idle server that was never asked for either holds neither it nor the two documents
// (bench/README.md, process memory).
import type { GraphQLSchema } from 'graphql';
import type { Json } from './openapi.js';
import type { RestRoute } from './routes.js';

export interface RestDocuments {
  openapi: Json;
  /** The HTML reference page. */
  docs: string;
}

export interface RestDocumentsOptions {
  /** The whole schema, and the REST routes' own (restSchema). */
  schema: GraphQLSchema;
  restSchema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  basePath: string;
  version: string;
  graphqlEndpoint: string;
}

/** The documents, built once (on the first call) and then kept. */
export function restDocuments({ schema, restSchema, routes, basePath, version, graphqlEndpoint }: RestDocumentsOptions): () => Promise<RestDocuments> {
  let built: Promise<RestDocuments> | undefined;
  const build = async () => {
    const [{ createSofa, createSofaRouter }, { buildOpenAPI }, { renderDocs }] = await Promise.all([
      import('sofa-api'),
      import('./openapi.js'),
      import('./docs.js'),
    ]);
    const sofa = createSofa({ basePath, schema: restSchema, routes, customScalars: { DateTime: { type: 'string', format: 'date-time' }, JSON: {} } });
    const openapi = buildOpenAPI(createSofaRouter(sofa).openAPIDocument, { schema, routes, basePath, version });
    return { openapi, docs: renderDocs(openapi, { basePath, graphqlEndpoint }) };
  };
  return () =>
    (built ??= build().catch((err: unknown) => {
      built = undefined; // the next request tries again
      throw err;
    }));
}
