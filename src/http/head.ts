// HEAD is GET without the body (RFC 9110, 9.3.2): every GET route answers it with the GET's status
// and headers. The GET runs as usual (a streamed CSV export is cancelled at its first page).
import type { Plugin } from 'graphql-yoga';
import { replacingRequest } from './request-id.js';

export function useHead(): Plugin {
  const heads = new WeakSet<Request>();
  return {
    onRequest({ request, setRequest }) {
      if (request.method !== 'HEAD') return;
      const get = replacingRequest(request, new Request(request.url, { method: 'GET', headers: request.headers }));
      heads.add(get);
      setRequest(get);
    },
    onResponse({ request, response, setResponse }) {
      if (!heads.has(request)) return;
      void response.body?.cancel();
      setResponse(new Response(null, { status: response.status, headers: response.headers }));
    },
  };
}
