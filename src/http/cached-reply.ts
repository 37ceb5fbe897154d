// Response-cache hits answered at the node:http level, before Yoga: a hit is a few header look-ups
// and one write, where Yoga's pipeline builds a Fetch Request, runs every plugin's hooks and pipes
// a Response back (most of a hit's CPU, bench/README.md). The answer is the one the plugins give
// (test/cached-reply.test.ts compares them): the same functions make its headers, namely the
// cache's reply (ETag, 304, encoding), the rate limit's count and headers, the request id, Yoga's
// CORS headers and the Vary that follows them.
//
// Only what surely is a hit is answered here; everything else goes to Yoga untouched, and nothing
// has been counted against the client by then: a request with a body, Cache-Control: no-cache, a
// key the cache does not hold, a client over its limit (Yoga refuses it, with its own 429), a
// failure on the way. Only the REST gate stores entries, for GET routes that need no bearer key
// (src/rest/gate.ts), so a key the cache holds never names a route that needs one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import type { NodeServerContext } from './client-identity.js';
import { isRateLimited, type RateLimiter } from './rate-limit.js';
import { newRequestId } from './request-id.js';
import { varyOnEncoding, type HeaderReader, type ResponseCache } from './response-cache.js';

/** Answers the request if the cache holds its answer; false when Yoga is to handle it. */
export type CachedReply = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export interface CachedReplyOptions {
  responseCache: ResponseCache;
  rateLimiter: RateLimiter | undefined;
  cors: CORSOptions;
}

/** node's request headers read as a Fetch Request's: the same values, as the Fetch adapter builds them from req.headers. */
function headerReader(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

const hasBody = (req: IncomingMessage) => (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

export function cachedReply({ responseCache, rateLimiter, cors }: CachedReplyOptions): CachedReply | undefined {
  if (!responseCache.enabled) return undefined;
  return async (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || hasBody(req)) return false;
    const headers = headerReader(req);
    // As the Fetch adapter builds it (requestTargetProblem has checked both parts), so the key is Yoga's.
    const url = new URL(`http://${req.headers.host}${req.url}`);
    try {
      const key = await responseCache.keyOf(headers, url);
      const reply = key && (await responseCache.reply(key, headers));
      if (!reply) return false;
      const request = { headers, method: req.method };
      const limited = rateLimiter && isRateLimited(url.pathname) ? await rateLimiter.check(request, { req } satisfies NodeServerContext) : undefined;
      if (limited?.refused) return false;
      const corsHeaders = getCORSHeadersByRequestAndOptions(request as unknown as Request, cors) ?? {};
      const sent: Record<string, string> = {
        ...reply.headers,
        ...limited?.headers,
        'X-Request-Id': newRequestId(headers.get('x-request-id')),
        ...corsHeaders,
      };
      sent.Vary = varyOnEncoding(corsHeaders.Vary ?? null);
      if (res.destroyed) return true;
      res.writeHead(reply.status, sent);
      res.end(req.method === 'HEAD' ? undefined : (reply.body ?? undefined));
      return true;
    } catch {
      // Yoga answers it, with its own handling of whatever failed (a database outage is a 503).
      return false;
    }
  };
}
