// The rate limit: one Yoga plugin, first in line, so every request (GraphQL, REST, the CSV export)
// spends from the same per-client budget of `limit` units in any rolling minute. A request spends
// its cost (`costOf`, the table in rest/request-costs.ts): 1 for most, more for the expensive
// routes; graphql-rate-limit counts it as that many calls (its arrayLengthField). graphql-rate-limit's
// core limiter makes the decision and words the refusal; the store records requests atomically
// (the limiter's own read-then-write is not), and supplies the remaining budget and reset time
// for the RateLimit headers, which follow the IETF draft (draft-ietf-httpapi-ratelimit-headers).
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import type { Store } from 'graphql-rate-limit';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import type { CallerOf } from './client-identity.js';
import type { NodeServerContext } from './edge.js';
import { noteRateLimit } from './finish.js';
import type { RateLimitStore, WindowHit } from './rate-limit-store.js';
import { refusal } from './refusal.js';

export const WINDOW_MS = 60_000;

/** Paths that are never limited: orchestrators probe them. */
const exemptPaths = new Set(['/health', '/ready']);

/** The refusal; a request that costs more than one says so, since the count it is refused at is not its own. */
export const rateLimitMessage = (limit: number, cost = 1) =>
  `Rate limit exceeded: maximum of ${limit} requests per minute${cost > 1 ? `; this request counts as ${cost}` : ''}`;

export interface RateLimitOptions {
  /** Requests per client per rolling minute; 0 disables the limit. */
  limit: number;
  store: RateLimitStore;
  /** Who is calling (client-identity.ts's callerResolver). */
  callerOf: CallerOf;
  log: Logger;
  /** The units a request spends (at least 1); every request costs 1 without it. */
  costOf?: (method: string, url: URL) => number;
}

interface Decision {
  /** The refusal message, when the request is over the limit. */
  refused?: string;
  hit: WindowHit;
}

/** The outcome of one request: its RateLimit headers, and the refusal message when it is over. */
export interface RateLimitCheck {
  headers: Record<string, string>;
  refused?: string;
}

type LimitedRequest = Pick<Request, 'url' | 'method'> & { headers: Pick<Headers, 'get'> };

export interface RateLimiter {
  /**
   * Counts the request against its client's budget (a refused one is not counted). Undefined when
   * the limiter failed: the request is admitted, without headers (logged here).
   */
  check(request: LimitedRequest, serverContext: NodeServerContext | undefined): Promise<RateLimitCheck | undefined>;
  /**
   * Counts the rest of a request found to cost `cost` once it is read (a GraphQL operation, after
   * `check` counted its first unit): `cost - 1` more units, all or none. Same answer as `check`;
   * undefined as well when there is nothing more to count.
   */
  chargeRest(request: LimitedRequest, serverContext: NodeServerContext | undefined, cost: number): Promise<RateLimitCheck | undefined>;
}

/** The limiter both the plugin (below) and the answers before Yoga (early-reply.ts) count with; undefined when there is no limit. */
export function createRateLimiter(options: RateLimitOptions): RateLimiter | undefined {
  const { limit, store, log, callerOf, costOf = () => 1 } = options;
  if (limit === 0) return undefined;
  const policy = `"default";q=${limit};w=${WINDOW_MS / 1000}`;

  // The limiter's core (with graphql-shield, yup and lodash: about 5 MB of heap) is loaded by the
  // first request it decides on, so a server run without a limit never holds it.
  const loadCore = () => import('graphql-rate-limit');
  let core: ReturnType<typeof loadCore> | undefined;

  /** `units` of a request that costs `cost` in all (the wording of a refusal names the whole cost). */
  async function decide(key: string, units: number, cost: number): Promise<Decision> {
    const { getGraphQLRateLimiter } = await (core ??= loadCore());
    let hit: WindowHit | undefined;
    // A store for this one request: its read is the store's atomic hit, and there is nothing left
    // to write afterwards. Times are handed over with their ages preserved on the limiter's clock,
    // which is Date.now() and may differ from an injected store clock.
    const requestStore: Store = {
      async getForIdentity() {
        hit = await store.hit(key, limit, WINDOW_MS, units);
        const shift = Date.now() - hit.now;
        return hit.earlier.map((t) => t + shift);
      },
      setForIdentity() {},
    };
    const limiter = getGraphQLRateLimiter({
      store: requestStore,
      identifyContext: () => key,
      formatError: ({ max }) => rateLimitMessage(max, cost),
    });
    const message = await limiter(
      { parent: undefined, args: { units: new Array(units) }, context: {}, info: { fieldName: 'request' } as GraphQLResolveInfo },
      { max: limit, window: `${WINDOW_MS}ms`, uncountRejected: true, arrayLengthField: 'units' },
    );
    // The store's atomic answer is final: an entry on the very edge of the window can look expired
    // to the limiter's clock read a moment later, and the store has not recorded this request.
    const refused = message ?? (hit!.admitted ? undefined : rateLimitMessage(limit, cost));
    return { refused, hit: hit! };
  }

  /**
   * Counts what is left of a request's whole cost (at least 1; a cost above the whole budget could
   * never be admitted, so it takes the whole budget instead) once `counted` units are counted.
   */
  async function count(
    request: LimitedRequest,
    serverContext: NodeServerContext | undefined,
    wholeCost: () => number,
    counted: number,
  ): Promise<RateLimitCheck | undefined> {
    let decision: Decision;
    let units = 1;
    let cost = 1;
    try {
      cost = Math.min(limit, Math.max(1, Math.ceil(wholeCost())));
      units = cost - counted;
      if (units <= 0) return undefined;
      const key = await callerOf(request, serverContext);
      decision = await decide(key, units, cost);
    } catch (err) {
      // Never turn a limiter fault into an outage: admit, and say why in the log.
      log.error('rate limit: could not decide, admitting the request', { err });
      return undefined;
    }
    const { hit, refused } = decision;
    const window = hit.admitted ? [...hit.earlier, ...new Array<number>(units).fill(hit.now)] : hit.earlier;
    const remaining = Math.max(0, limit - window.length);
    // Seconds until the entry at `index` leaves the window.
    const leaves = (index: number) => Math.max(1, Math.ceil((window[index]! + WINDOW_MS - hit.now) / 1000));
    // Seconds until the oldest entry leaves the window and a unit frees up.
    const reset = window.length === 0 ? 0 : leaves(0);
    const headers: Record<string, string> = { 'RateLimit-Policy': policy, RateLimit: `"default";r=${remaining};t=${reset}` };
    // A refused request can come back once enough entries have left for its units.
    if (refused) headers['Retry-After'] = String(leaves(Math.min(window.length - 1, Math.max(0, window.length + units - limit - 1))));
    return { headers, refused };
  }

  return {
    check: (request, serverContext) => count(request, serverContext, () => costOf(request.method, new URL(request.url)), 0),
    chargeRest: (request, serverContext, cost) => count(request, serverContext, () => cost, 1),
  };
}

/** The 429 of a request whose units beyond its first do not fit (a GraphQL error: REST words it as the envelope). */
export const rateLimited = (message: string, headers: Record<string, string>) =>
  new GraphQLError(message, { extensions: { code: 'RATE_LIMITED', http: { status: 429, headers } } });

/**
 * Counts a request whose whole cost (`cost` units, its first already counted) is known only once
 * its work is (a watched stack's size, stacks/cost.ts stackWorkCost), before that work
 * runs; throws the 429 when the units do not fit. Nothing to count without a limit.
 */
export async function chargeWork(
  limiter: RateLimiter | undefined,
  request: LimitedRequest,
  serverContext: NodeServerContext | undefined,
  cost: number,
): Promise<void> {
  const checked = await limiter?.chargeRest(request, serverContext, cost);
  if (!checked) return;
  // finish() sets the RateLimit headers; the refusal carries only its Retry-After (a header in both
  // would be sent twice on a REST answer, whose headers finish() adds to rather than replaces).
  const { 'Retry-After': retryAfter, ...limits } = checked.headers;
  if (serverContext) noteRateLimit(serverContext, limits);
  if (checked.refused) throw rateLimited(checked.refused, retryAfter ? { 'Retry-After': retryAfter } : {});
}

/** Whether the rate limit applies to this path (orchestrators' probes are exempt). */
export const isRateLimited = (pathname: string) => !exemptPaths.has(pathname);

export function useRateLimit(limiter: RateLimiter | undefined, graphqlEndpoint: string): Plugin {
  if (!limiter) return {};
  return {
    async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      // CORS preflights are answered before this plugin and cost nothing.
      if (!isRateLimited(url.pathname)) return;
      const checked = await limiter.check(request, serverContext as NodeServerContext);
      if (!checked) return;
      const { headers, refused } = checked;
      if (refused) {
        return endResponse(refusal(fetchAPI, url.pathname === graphqlEndpoint, { status: 429, code: 'RATE_LIMITED', message: refused, headers }));
      }
      // Added to the response by finish() (keyed by the server context: later plugins may replace the Request).
      noteRateLimit(serverContext, headers);
    },
  };
}
