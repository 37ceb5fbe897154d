// GraphiQL for browsers on GET /graphql. Served by this plugin rather than Yoga's option, which
// answers before any plugin runs: the page is 9 MB of inline script (no CDN, so it works offline
// and behind a CSP), and behind the rate limit it cannot be fetched in a loop. Rendered on the
// first visit, not at start-up, and cacheable by the browser.
import type { Plugin } from 'graphql-yoga';

export function useGraphiQLPage({ graphqlEndpoint, title, defaultQuery }: { graphqlEndpoint: string; title: string; defaultQuery: string }): Plugin {
  let page: Promise<string> | undefined;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== graphqlEndpoint || !request.headers.get('accept')?.includes('text/html')) return;
      page ??= import('@graphql-yoga/render-graphiql').then((m) => m.renderGraphiQL({ title, defaultQuery }));
      const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=3600' };
      endResponse(new fetchAPI.Response(await page, { headers }));
    },
  };
}
