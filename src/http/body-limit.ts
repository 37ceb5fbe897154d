// Request body limits for every route. Yoga's own limit covers GraphQL parsing only; REST (SOFA),
// the CSV export and plain routes read bodies themselves. A declared Content-Length over the limit
// is refused before a byte is read; a body without one (chunked) is read up to the limit and
// refused as soon as it passes it, then handed on in memory so no later reader can exceed it.
import type { Plugin } from 'graphql-yoga';
import { onRequestFor } from './guard.js';
import { refusal } from './refusal.js';
import { replacingRequest } from './edge.js';

export const MB = 1024 * 1024;

export const bodyLimits = {
  /** Any request: far above the largest legitimate body (a scan of 2 x 1000 names of 200 characters is about 0.4 MB). */
  default: 1 * MB,
  /** Admin ingest (the route table gives it): batches of a few thousand OSV records. Larger imports: the CLI. */
  adminIngest: 32 * MB,
};

const sizeText = (bytes: number) => `${bytes / MB} MB`;

export interface BodyLimitOptions {
  graphqlEndpoint: string;
  /** Larger limits for requests with the admin key, by path (the route table's). */
  adminLimits: Record<string, number>;
  /** Whether the request carries the admin key (the request's viewer says). */
  isAdmin: (request: Request) => boolean;
}

export function useBodyLimit(options: BodyLimitOptions): Plugin {
  function limitFor(request: Request, pathname: string): number {
    const larger = options.adminLimits[pathname];
    // Only the admin may send more; anyone else is held to the default before authentication runs.
    return larger && options.isAdmin(request) ? larger : bodyLimits.default;
  }

  return {
    onRequest: onRequestFor(
      (_url, request) => request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null,
      async ({ request, url, setRequest, endResponse, fetchAPI }) => {
        const isGraphQL = url.pathname === options.graphqlEndpoint;
        const limit = limitFor(request, url.pathname);
        const tooLarge = () =>
          refusal(fetchAPI, isGraphQL, { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `Request body too large: the limit is ${sizeText(limit)}` });

        const declared = request.headers.get('content-length');
        if (declared !== null) {
          if (!/^\d+$/.test(declared))
            return endResponse(refusal(fetchAPI, isGraphQL, { status: 400, code: 'BAD_REQUEST', message: 'Invalid Content-Length header' }));
          if (Number(declared) > limit) return endResponse(tooLarge());
        }

        const chunks: Uint8Array[] = [];
        let size = 0;
        const reader = request.body!.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            size += value.byteLength;
            if (size > limit) {
              await reader.cancel().catch(() => {});
              return endResponse(tooLarge());
            }
            chunks.push(value);
          }
        } catch {
          // The client went away or sent a broken body; nobody is left to read a long answer.
          return endResponse(refusal(fetchAPI, isGraphQL, { status: 400, code: 'BAD_REQUEST', message: 'Could not read the request body' }));
        }
        setRequest(
          replacingRequest(
            request,
            new fetchAPI.Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(chunks), signal: request.signal }),
          ),
        );
      },
    ),
  };
}
