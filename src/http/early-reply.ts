// Response-cache hits answered at the node:http level, before Yoga, where Yoga's pipeline would
// build a Fetch Request, run every plugin's hooks and pipe a Response back (most of a small
// request's CPU, bench/README.md): a few header look-ups and one write. The answer is the one the
// plugins give (test/edge/cached-reply.test.ts compares them): the cache's reply (ETag, 304, encoding,
// the kept licence and paging links), Yoga's CORS headers, and what every answer carries, added by
// the same finish() as on Yoga's path (the rate limit's count, the request id, Vary).
//
// Only a hit is answered here; everything else goes to Yoga untouched, and nothing has been counted
// against the client by then: other methods (but a HEAD hit), a request with a body, a client over
// its limit (Yoga refuses it, with its own 429), a failure on the way. Only the REST cache plugin stores
// entries, for GET routes that need no bearer key (src/rest/cache-plugin.ts), so a key the cache holds
// never names a route that needs one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import { handOverDataVersion, newRequestId, type NodeServerContext } from './edge.js';
import type { DataVersionReader } from '../db/data-version.js';
import { isRateLimited, type RateLimiter } from './rate-limit.js';
import { asHeaders, finish } from './finish.js';
import type { HeaderReader, ResponseCache } from './response-cache.js';

/**
 * Answers a cache hit before Yoga: 'hit' when it did, false when Yoga is to handle the request
 * (at once, without a promise, for a request that cannot be a hit: no URL is parsed for it).
 */
export type EarlyReply = (req: IncomingMessage, res: ServerResponse) => Promise<'hit' | false> | false;

export interface EarlyReplyOptions {
  responseCache: ResponseCache;
  versions: DataVersionReader;
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

const corsRequestHeaders = ['origin', 'access-control-request-method', 'access-control-request-headers'];

const hasBody = (req: IncomingMessage) =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

export function earlyReply({ responseCache, versions, rateLimiter, cors }: EarlyReplyOptions): EarlyReply {
  /** The CORS headers Yoga's plugin gives a request with these headers (a Request carrying just the ones CORS reads). */
  const corsHeadersOf = (url: URL, method: string, headers: HeaderReader) => {
    // No Origin, no CORS headers: the same function answers null for it without reading anything else.
    if (headers.get('origin') === null) return null;
    const corsHeaders = corsRequestHeaders.flatMap((name) => {
      const value = headers.get(name);
      return value === null ? [] : [[name, value] as [string, string]];
    });
    return getCORSHeadersByRequestAndOptions(new Request(url.href, { method, headers: corsHeaders }), cors);
  };

  async function reply(req: IncomingMessage, res: ServerResponse, method: string, headers: HeaderReader): Promise<'hit' | false> {
    // As the Fetch adapter builds it (requestTargetProblem has checked both parts), so the key is Yoga's.
    const url = new URL(`http://${req.headers.host}${req.url}`);
    const request = { url: url.href, method, headers };
    let version: Promise<string> | undefined;
    const key = await responseCache.keyOf(headers, url, () => (version = versions.current()));
    // Yoga takes this read of the data version over (edge.ts).
    const goesOn = () => {
      if (version) handOverDataVersion(req, version);
      return false as const;
    };
    const reply = key && (await responseCache.reply(key, headers));
    if (!reply) return goesOn();
    const limited = rateLimiter && isRateLimited(url.pathname) ? await rateLimiter.check(request, { req } satisfies NodeServerContext) : undefined;
    if (limited?.refused) return goesOn();
    if (res.destroyed) return 'hit';
    const sent = { ...reply.headers, ...corsHeadersOf(url, method, headers) };
    // The request has no edge context (edge.ts): nothing but this answer asks for its id.
    finish(asHeaders(sent), { requestId: newRequestId(headers.get('x-request-id')), rateLimit: limited?.headers, cached: true });
    res.writeHead(reply.status, sent);
    res.end(method === 'HEAD' ? undefined : (reply.body ?? undefined));
    return 'hit';
  }

  return (req, res) => {
    const { method } = req;
    if ((method !== 'GET' && method !== 'HEAD') || hasBody(req)) return false;
    const headers = headerReader(req);
    if (responseCache.bypassedBy(headers)) return false;
    // Yoga answers whatever failed, with its own handling of it (a database outage is a 503).
    return reply(req, res, method, headers).catch(() => false as const);
  };
}
