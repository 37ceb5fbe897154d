// HEAD is GET without the body (RFC 9110, 9.3.2): every GET route answers it with the GET's status
// and headers. The GET runs as usual (a streamed CSV export is cancelled at its first page).
//
// A GraphQL subscription (an SSE stream) is the exception to cancelling: Yoga's stream throws when
// cancelled before it was first read, and the slot its subscribe took (subscription-slots.ts) would
// be held by a stream nobody reads, past any idle timer. So a HEAD's subscription is ended as soon
// as it is made, its body is dropped unread, and the connection closes after the headers.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { replacingRequest } from './edge.js';

const isEventStream = (response: Response) => /^text\/event-stream/i.test(response.headers.get('content-type') ?? '');

export function useHead(): Plugin<{ request?: Request }> {
  const heads = new WeakSet<Request>();
  return {
    onRequest({ request, setRequest }) {
      if (request.method !== 'HEAD') return;
      const get = replacingRequest(request, new Request(request.url, { method: 'GET', headers: request.headers }));
      heads.add(get);
      setRequest(get);
    },
    onSubscribe({ args }) {
      const request = args.contextValue.request;
      if (!request || !heads.has(request)) return;
      return {
        onSubscribeResult({ result }) {
          if (isAsyncIterable(result)) void result.return?.()?.catch(() => undefined);
        },
      };
    },
    onResponse({ request, response, setResponse }) {
      if (!heads.has(request)) return;
      const headers = new Headers(response.headers);
      if (isEventStream(response)) headers.set('Connection', 'close');
      else void response.body?.cancel().catch(() => undefined);
      setResponse(new Response(null, { status: response.status, headers }));
    },
  };
}
