// One edge context per request: what the app resolves about a request once and reads from here
// wherever it is needed (the request id, the caller's viewer and rate-limit identity, the response
// cache's key at the data version read for it, the REST route it matched). It is made the first
// time anything asks about the request, and handed on when a plugin replaces the Request (a HEAD
// answered as GET, a body re-read into memory): replacingRequest.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Viewer } from '../keys/viewer.js';

/** What the REST plugins (src/rest/) learn of a request, in the order they run. */
export interface RestCall {
  /** The route's key in the route table (`Query.issues`), or the document page it asks for (`/docs`). */
  key: string;
  /** The path's parameters, decoded. */
  params: Record<string, string>;
  /** The answer is the same for every caller, so the response cache may keep it (for at most ttlSeconds when set). */
  cacheable?: { ttlSeconds?: number };
  /** The cache key to keep this request's 200 under, once every plugin has added its headers. */
  store?: { key: string; ttlSeconds?: number };
  /** The JSON body's arguments, read and parsed once. */
  bodyArguments?: Record<string, unknown>;
  /** The route's answer as execution gave it (the list's paging links read it instead of the JSON body). */
  answer?: unknown;
  /** Yoga's server context of the request (SOFA executes on a copy): what finish() reads its headers by. */
  serverContext?: object;
}

export interface Edge {
  /** The caller's X-Request-Id when it is sane, else a fresh UUID. */
  readonly requestId: string;
  /** Who is calling, by bearer key (built on first use). */
  viewer?: Viewer;
  /** The rate-limit identity (client-identity.ts), resolved on first use. */
  caller?: Promise<string>;
  /** The data version, read once for the request (dataVersionOf). */
  dataVersion?: Promise<string>;
  /** The response-cache key at that version; undefined when the answer is not to be cached. */
  cacheKey?: Promise<string | undefined>;
  /** Set once a REST route or document matched. */
  rest?: RestCall;
}

/** A Fetch Request, or node's request as the early reply reads it (src/http/early-reply.ts). */
export type HeadersOf = { headers: Pick<Headers, 'get'> };

const edges = new WeakMap<object, Edge>();
const acceptableId = /^[\w.:-]{1,128}$/;

/** The id of a request that sent this X-Request-Id (or none): the header when it is sane, else a fresh UUID. */
export const newRequestId = (given: string | null): string => (given && acceptableId.test(given) ? given : randomUUID());

/** The request's edge context, made on first use. */
export function edgeOf(request: HeadersOf): Edge {
  let edge = edges.get(request);
  if (!edge) {
    edge = { requestId: newRequestId(request.headers.get('x-request-id')) };
    edges.set(request, edge);
  }
  return edge;
}

/** `next` replaces `old` in the pipeline: it keeps old's edge context. */
export function replacingRequest<R extends HeadersOf>(old: HeadersOf, next: R): R {
  edges.set(next, edgeOf(old));
  return next;
}

/** What node:http's adapter puts in Yoga's server context (absent for in-process calls). */
export interface NodeServerContext {
  req?: Pick<IncomingMessage, 'socket'>;
}

const earlyVersions = new WeakMap<object, Promise<string>>();

/**
 * The data version read for a node request before Yoga (the early reply), handed on with a request
 * that goes on to Yoga, whose pipeline takes this read over instead of making a second one.
 */
export function handOverDataVersion(req: object, version: Promise<string>): void {
  earlyVersions.set(req, version);
}

/** The data version as read for this request, once (by the early reply, or by `read` now); the response cache and the counts key on it. */
export function dataVersionOf(request: HeadersOf, serverContext: NodeServerContext, read: () => Promise<string>): Promise<string> {
  const edge = edgeOf(request);
  edge.dataVersion ??= (serverContext.req && earlyVersions.get(serverContext.req)) || read();
  return edge.dataVersion;
}

/** The response-cache key of this request, resolved once. */
export function cacheKeyOf(request: HeadersOf, resolve: () => Promise<string | undefined>): Promise<string | undefined> {
  const edge = edgeOf(request);
  edge.cacheKey ??= resolve();
  return edge.cacheKey;
}
