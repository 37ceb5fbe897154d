// Response-cache hits answered at the node:http level, before Yoga, where Yoga's pipeline would
// build a Fetch Request, run every plugin's hooks and pipe a Response back (most of a small
// request's CPU, bench/README.md): a few header look-ups and one write. The answer is the one the
// plugins give (test/cached-reply.test.ts compares them): the same functions make its headers,
// namely the cache's reply (ETag, 304, encoding, the kept licence and paging links), the rate
// limit's count and headers, the request id, Yoga's CORS headers and the Vary that follows them.
//
// Only a hit is answered here; everything else goes to Yoga untouched, and nothing has been counted
// against the client by then: other methods (but a HEAD hit), a request with a body, a client over
// its limit (Yoga refuses it, with its own 429), a failure on the way. Only the REST gate stores
// entries, for GET routes that need no bearer key (src/rest/gate.ts), so a key the cache holds
// never names a route that needs one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import type { NodeServerContext } from './client-identity.js';
import { isRateLimited, type RateLimiter } from './rate-limit.js';
import { requestIdOf } from './request-id.js';
import { varyOnEncoding, type HeaderReader, type ResponseCache } from './response-cache.js';

/** Answers a cache hit before Yoga: 'hit' when it did, false when Yoga is to handle the request. */
export type EarlyReply = (req: IncomingMessage, res: ServerResponse) => Promise<'hit' | false>;

export interface EarlyReplyOptions {
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

const hasBody = (req: IncomingMessage) =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

export function earlyReply({ responseCache, rateLimiter, cors }: EarlyReplyOptions): EarlyReply {
  return async (req, res) => {
    const { method } = req;
    if ((method !== 'GET' && method !== 'HEAD') || hasBody(req) || !responseCache.enabled) return false;
    const headers = headerReader(req);
    // As the Fetch adapter builds it (requestTargetProblem has checked both parts), so the key is Yoga's.
    const url = new URL(`http://${req.headers.host}${req.url}`);
    const request = { url: url.href, method, headers };
    try {
      const key = await responseCache.keyOf(headers, url);
      const reply = key && (await responseCache.reply(key, headers));
      if (!reply) return false;
      const limited = rateLimiter && isRateLimited(url.pathname) ? await rateLimiter.check(request, { req } satisfies NodeServerContext) : undefined;
      if (limited?.refused) return false;
      if (res.destroyed) return 'hit';
      const corsHeaders = getCORSHeadersByRequestAndOptions(request as unknown as Request, cors) ?? {};
      // Yoga's path adds Accept-Encoding to the Vary of every answer of a cacheable request (rest/gate.ts).
      const own = { ...limited?.headers, 'X-Request-Id': requestIdOf(request), ...corsHeaders, Vary: varyOnEncoding(corsHeaders.Vary ?? null) };
      res.writeHead(reply.status, { ...reply.headers, ...own });
      res.end(method === 'HEAD' ? undefined : (reply.body ?? undefined));
      return 'hit';
    } catch {
      // Yoga answers it, with its own handling of whatever failed (a database outage is a 503).
      return false;
    }
  };
}
