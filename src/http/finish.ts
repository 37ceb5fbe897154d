// What every answer carries beside its own status, body and headers, decided here once for both
// ways an answer leaves: through Yoga's pipeline (useFinish, for every response) and as a cache hit
// written before Yoga (early-reply.ts).
// - Link: the data licence on every API answer, and a list's paging links; a cached answer keeps
//   the ones it was stored with (response-cache.ts), so a replay is given none here.
// - RateLimit and RateLimit-Policy: what the limiter counted for this request.
// - X-Request-Id: the request's id.
// - Vary: Accept-Encoding beside what CORS named (Origin), on every answer of a cached route.
// The CORS headers are Yoga's (its cors option; early-reply.ts asks the same function).
import type { Plugin } from 'graphql-yoga';
import { DATA_LICENSE } from '../data-license.js';
import { requestIdOf } from './request-id.js';
import { isReplay, varyOnEncoding } from './response-cache.js';

export const licenseLink = `<${DATA_LICENSE.url}>; rel="license"`;

export interface Finishing {
  requestId: string;
  /** The limiter's headers for this request; none when the path is exempt or the limiter failed. */
  rateLimit?: Record<string, string>;
  /** The answer is, or may become, a response-cache entry. */
  cached: boolean;
  /** The Link values of a fresh answer (a replay keeps its own). */
  links?: readonly string[];
}

/** Headers as finish() writes them: a Fetch Headers, or a plain record (asHeaders). */
export type HeaderSink = Pick<Headers, 'get' | 'set'>;

export function finish(headers: HeaderSink, { requestId, rateLimit, cached, links }: Finishing): void {
  if (links?.length) headers.set('Link', links.join(', '));
  for (const [name, value] of Object.entries(rateLimit ?? {})) headers.set(name, value);
  headers.set('X-Request-Id', requestId);
  if (cached) headers.set('Vary', varyOnEncoding(headers.get('vary')));
}

/** A plain record of headers (node's writeHead takes one) as finish() writes them; names as given. */
export function asHeaders(record: Record<string, string>): HeaderSink {
  const find = (name: string) => Object.keys(record).find((key) => key.toLowerCase() === name.toLowerCase());
  return {
    get: (name) => record[find(name) ?? name] ?? null,
    set: (name, value) => {
      record[find(name) ?? name] = value;
    },
  };
}

/** Per request (by server context), what earlier hooks learnt that finish() needs. */
const rateLimits = new WeakMap<object, Record<string, string>>();
const cachedRoutes = new WeakSet<object>();

/** The limiter's headers for this request (http/rate-limit.ts). */
export const noteRateLimit = (serverContext: object, headers: Record<string, string>) => rateLimits.set(serverContext, headers);

/** This request's route is a cached one (rest/cache-plugin.ts), whether or not its answer is kept. */
export const noteCachedRoute = (serverContext: object) => cachedRoutes.add(serverContext);

export interface FinishOptions {
  /** The Link values of a fresh answer to this request (the licence, a list's paging links). */
  links: (request: Request, response: Response, serverContext: object) => string[];
}

/** finish() for every response of Yoga's pipeline: before the cache keeps one (its links go in), after every other header. */
export function useFinish({ links }: FinishOptions): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const replay = isReplay(serverContext);
      finish(response.headers, {
        requestId: requestIdOf(request),
        rateLimit: rateLimits.get(serverContext),
        cached: replay || cachedRoutes.has(serverContext),
        links: replay ? undefined : links(request, response, serverContext),
      });
    },
  };
}
