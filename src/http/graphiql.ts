// GraphiQL for browsers on GET /graphql. Served by this plugin rather than Yoga's option, which
// answers before any plugin runs: the page is 9 MB of inline script (no CDN, so it works offline
// and behind a CSP), and behind the rate limit it cannot be fetched in a loop. Rendered on the
// first visit, not at start-up, and cacheable by the browser; compressed once per encoding a
// client asks for (with the response cache's compressors), so a visit sends a fraction of it.
import type { Plugin } from 'graphql-yoga';
import { onRequestFor } from './guard.js';
import { chooseEncoding, compressors, type Encoding } from './response-cache.js';

export function useGraphiQLPage({ graphqlEndpoint, title, defaultQuery }: { graphqlEndpoint: string; title: string; defaultQuery: string }): Plugin {
  let page: Promise<Buffer> | undefined;
  const encoded: Partial<Record<Encoding, Promise<Buffer>>> = {};
  return {
    onRequest: onRequestFor(
      (url, request) => request.method === 'GET' && url.pathname === graphqlEndpoint && !!request.headers.get('accept')?.includes('text/html'),
      async ({ request, endResponse, fetchAPI }) => {
        page ??= import('@graphql-yoga/render-graphiql').then((m) => Buffer.from(m.renderGraphiQL({ title, defaultQuery })));
        const encoding = chooseEncoding(request.headers.get('accept-encoding'));
        const headers: Record<string, string> = {
          'Content-Type': 'text/html; charset=utf-8',
          'Cache-Control': 'public, max-age=3600',
          Vary: 'Accept-Encoding',
        };
        let body = await page;
        if (encoding) {
          const compressing = (encoded[encoding] ??= compressors[encoding](body));
          // A failed compression is tried again by the next visit; this one gets the page as it is.
          compressing.catch(() => delete encoded[encoding]);
          const compressed = await compressing.catch(() => undefined);
          if (compressed) {
            body = compressed;
            headers['Content-Encoding'] = encoding;
          }
        }
        endResponse(new fetchAPI.Response(body as Uint8Array<ArrayBuffer>, { headers }));
      },
    ),
  };
}
