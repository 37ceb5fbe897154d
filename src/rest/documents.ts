// The OpenAPI document and the docs page, built at their first request from the description of the
// routes that sofa-api's router (sofa.ts) made: an idle server that was never asked for either
// holds neither document.
import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { edgeOf } from '../http/edge.js';
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

/** The paths of the documents under the base path (route-plugin.ts matches them before the routes). */
export const documentPages = ['/openapi.json', '/docs'];

/** Answers the document a request matched (after the response cache, which may hold it). */
export function useRestDocuments(options: RestDocumentsOptions): Plugin {
  const documents = restDocuments(options);
  const pages: Record<string, () => Promise<Response>> = {
    '/openapi.json': async () => Response.json((await documents()).openapi),
    '/docs': async () => new Response((await documents()).docs, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  };
  return {
    onRequest({ request, endResponse }) {
      const rest = edgeOf(request).rest;
      const page = rest && pages[rest.key];
      if (page) return page().then(endResponse);
    },
  };
}
