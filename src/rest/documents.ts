// The OpenAPI document and the docs page, built at their first request from the description of the
// routes that sofa-api's router (gate.ts) made: an idle server that was never asked for either
// holds neither document.
import type { GraphQLSchema } from 'graphql';
import type { Json } from './openapi.js';
import type { RestRoute } from './routes.js';

export interface RestDocuments {
  openapi: Json;
  /** The HTML reference page. */
  docs: string;
}

export interface RestDocumentsOptions {
  /** The whole schema. */
  schema: GraphQLSchema;
  routes: Record<string, RestRoute>;
  basePath: string;
  version: string;
  graphqlEndpoint: string;
  /** SOFA's own OpenAPI document of the routes (its router's). */
  sofaDocument: Json;
}

/** The documents, built once (on the first call) and then kept. */
export function restDocuments({ schema, routes, basePath, version, graphqlEndpoint, sofaDocument }: RestDocumentsOptions): () => Promise<RestDocuments> {
  let built: Promise<RestDocuments> | undefined;
  const build = async () => {
    const [{ buildOpenAPI }, { renderDocs }] = await Promise.all([import('./openapi.js'), import('./docs.js')]);
    const openapi = buildOpenAPI(sofaDocument, { schema, routes, basePath, version });
    return { openapi, docs: renderDocs(openapi, { basePath, graphqlEndpoint }) };
  };
  return () =>
    (built ??= build().catch((err: unknown) => {
      built = undefined; // the next request tries again
      throw err;
    }));
}
