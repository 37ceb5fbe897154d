// The response cache on the REST routes whose answer is the same for every caller (GET routes
// without a bearer key, and the documents): a hit is answered at once; a miss notes its key, and
// its 200 is kept once every plugin has added its headers (after useFinish, so the licence and
// paging links go in). The key, and the data version in it, are resolved once per request
// (edge.ts: the version by the early reply already when the request came over a socket).
import type { Plugin } from 'graphql-yoga';
import { cacheKeyOf, dataVersionOf, edgeOf, type NodeServerContext } from '../http/edge.js';
import type { DataVersionReader } from '../db/data-version.js';
import { noteCachedRoute } from '../http/finish.js';
import type { ResponseCache } from '../http/response-cache.js';

export function useRestCache(responseCache: ResponseCache, versions: DataVersionReader): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const rest = edgeOf(request).rest;
      const cacheable = rest?.cacheable;
      if (!rest || !cacheable || !responseCache.enabled) return;
      const version = () => dataVersionOf(request, serverContext as NodeServerContext, () => versions.current());
      return cacheKeyOf(request, () => responseCache.keyOf(request.headers, url, version)).then(async (key) => {
        if (!key) return;
        noteCachedRoute(serverContext);
        const hit = await responseCache.replay(key, request, serverContext, fetchAPI.Response);
        if (hit) endResponse(hit);
        else rest.store = { key, ttlSeconds: cacheable.ttlSeconds };
      });
    },
    // Synchronous unless there is an answer to keep (http/guard.ts).
    onResponse({ request, response, setResponse, fetchAPI }) {
      const store = edgeOf(request).rest?.store;
      // A HEAD's body is gone already (useHead): nothing to keep.
      if (!store || response.status !== 200 || !response.body) return;
      return responseCache.store(store.key, request, response, fetchAPI.Response, store.ttlSeconds).then(setResponse);
    },
  };
}
