// GET requests answered at the node:http level, before Yoga, where Yoga's pipeline would build a
// Fetch Request, run every plugin's hooks and pipe a Response back (most of a small request's CPU
// beside the query itself, bench/README.md):
// - response-cache hits: a few header look-ups and one write;
// - the public JSON reads of the REST gate (its directRead: a list, an issue, a digest, stats),
//   run through the same envelop executor (Yoga's plugins around execution, error masking,
//   graphql-jit) with the arguments read and checked as the gate reads them.
// The answer is the one the plugins give (test/cached-reply.test.ts and test/direct-read.test.ts
// compare them): the same functions make its headers, namely the cache's reply and entry (ETag,
// 304, encoding), the licence and paging links, the rate limit's count and headers, the request id,
// Yoga's CORS headers and the Vary that follows them.
//
// Only what surely is one of these is answered here; everything else goes to Yoga untouched, and
// nothing has been counted against the client by then: HEAD and other methods (but a HEAD hit), a
// request with a body, a client over its limit (Yoga refuses it, with its own 429), a failure on the
// way to the route. Only the REST gate stores entries, for GET routes that need no bearer key
// (src/rest/gate.ts), so a key the cache holds never names a route that needs one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import type { NodeServerContext } from './client-identity.js';
import { licenseLink } from './license.js';
import { isRateLimited, type RateLimiter } from './rate-limit.js';
import { requestIdOf, withRequestId } from './request-id.js';
import { varyOnEncoding, type HeaderReader, type Reply, type ResponseCache } from './response-cache.js';

/** A route's answer before it becomes a Response (in Yoga) or is written to node's response (here). */
export interface RouteAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The route's result as it was serialised (for the paging links); absent on an error. */
  data?: unknown;
}

/** A read the REST gate answers for a request that skipped Yoga; `answer` runs the route. */
export interface DirectRead {
  ttlSeconds?: number;
  answer(serverContext: object): Promise<RouteAnswer>;
}

/** The request as a route reads it: a Fetch Request, or node's request line and headers. */
export type RouteRequest = Pick<Request, 'url' | 'method'> & { headers: HeaderReader };

/** Answers the request before Yoga: 'hit' from the cache, 'read' through the gate; false when Yoga is to handle it. */
export type EarlyReply = (req: IncomingMessage, res: ServerResponse) => Promise<'hit' | 'read' | false>;

export interface EarlyReplyOptions {
  responseCache: ResponseCache;
  rateLimiter: RateLimiter | undefined;
  cors: CORSOptions;
  /** The REST gate's reads that need no Yoga (src/rest/gate.ts). */
  directRead: (request: RouteRequest, url: URL) => DirectRead | undefined;
  /** The paging links of a 200 route answer at this URL (src/paging/links.ts). */
  pagingLinks: (url: URL, data: unknown) => string[];
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

export function earlyReply({ responseCache, rateLimiter, cors, directRead, pagingLinks }: EarlyReplyOptions): EarlyReply {
  /** The headers of this request's own (never cached): its RateLimit, X-Request-Id and CORS headers, and Vary. */
  function ownHeaders(request: { headers: HeaderReader; method: string }, limited: Record<string, string> | undefined, requestId: string, cached: boolean) {
    const corsHeaders = getCORSHeadersByRequestAndOptions(request as unknown as Request, cors) ?? {};
    const sent: Record<string, string> = { ...limited, 'X-Request-Id': requestId, ...corsHeaders };
    // Yoga's path adds Accept-Encoding to the Vary of every answer of a cacheable request (rest/gate.ts).
    if (cached) sent.Vary = varyOnEncoding(corsHeaders.Vary ?? null);
    return sent;
  }

  /** The answer Yoga's plugins make of a route's: the licence and paging links, then kept in the cache when it may be. */
  async function routeReply(answer: RouteAnswer, url: URL, key: string | undefined, read: DirectRead, headers: HeaderReader): Promise<Reply | RouteAnswer> {
    const links = [licenseLink];
    if (answer.status === 200 && answer.data) links.push(...pagingLinks(url, answer.data));
    const answered = { ...answer, headers: { ...answer.headers, link: links.join(', ') } };
    if (!key || answer.status !== 200) return answered;
    return responseCache.keep(key, answer.body, Object.entries(answered.headers), headers, read.ttlSeconds);
  }

  return async (req, res) => {
    const { method } = req;
    if ((method !== 'GET' && method !== 'HEAD') || hasBody(req)) return false;
    const headers = headerReader(req);
    // As the Fetch adapter builds it (requestTargetProblem has checked both parts), so the key is Yoga's.
    const url = new URL(`http://${req.headers.host}${req.url}`);
    const request = { url: url.href, method, headers };
    try {
      const key = await responseCache.keyOf(headers, url);
      const reply = key && (await responseCache.reply(key, headers));
      const read = reply ? undefined : method === 'GET' ? directRead(request, url) : undefined;
      if (!reply && !read) return false;
      const limited = rateLimiter && isRateLimited(url.pathname) ? await rateLimiter.check(request, { req } satisfies NodeServerContext) : undefined;
      if (limited?.refused) return false;
      const requestId = requestIdOf(request);
      let sent: Reply | RouteAnswer;
      if (reply) sent = reply;
      else {
        const answer = await withRequestId(requestId, () => read!.answer({ req, res }));
        sent = await routeReply(answer, url, key, read!, headers);
      }
      if (res.destroyed) return reply ? 'hit' : 'read';
      res.writeHead(sent.status, { ...sent.headers, ...ownHeaders(request, limited?.headers, requestId, key !== undefined) });
      res.end(method === 'HEAD' ? undefined : (sent.body ?? undefined));
      return reply ? 'hit' : 'read';
    } catch {
      // Yoga answers it, with its own handling of whatever failed (a database outage is a 503).
      return false;
    }
  };
}
