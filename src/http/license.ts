// The data is CC-BY-4.0, whose attribution travels with every copy: every API response says so in
// a Link header.
import type { Plugin } from 'graphql-yoga';
import { DATA_LICENSE } from '../data-license.js';
import { isReplay } from './response-cache.js';

export const licenseLink = `<${DATA_LICENSE.url}>; rel="license"`;

export function useLicenseLink(graphqlEndpoint: string): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      // A cached answer carries its links already (setting this one would drop its paging links).
      if (isReplay(serverContext)) return;
      const path = new URL(request.url).pathname;
      if (path === '/api' || path.startsWith('/api/') || path === graphqlEndpoint) response.headers.set('Link', licenseLink);
    },
  };
}
