// One id per request: the caller's X-Request-Id when it is sane, else a fresh UUID. It is echoed in
// the X-Request-Id response header (finish.ts) and is reachable from anywhere the request is being handled
// (error masking has no context argument), so a masked 500 can be found in the logs.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

/** A Fetch Request, or node's request as an early reply reads it (src/http/early-reply.ts). */
type HeadersOf = { headers: Pick<Headers, 'get'> };

const ids = new WeakMap<HeadersOf, string>();
const current = new AsyncLocalStorage<string>();
const acceptable = /^[\w.:-]{1,128}$/;

/** The id of a request that sent this X-Request-Id (or none): the header when it is sane, else a fresh UUID. */
export const newRequestId = (given: string | null): string => (given && acceptable.test(given) ? given : randomUUID());

export function requestIdOf(request: HeadersOf): string {
  let id = ids.get(request);
  if (!id) {
    id = newRequestId(request.headers.get('x-request-id'));
    ids.set(request, id);
  }
  return id;
}

/** `next` replaces `old` in the pipeline (a re-read body, HEAD as GET): it keeps old's id. */
export function replacingRequest(old: Request, next: Request): Request {
  ids.set(next, requestIdOf(old));
  return next;
}

/** Runs `work` as the handling of the request with this id (what useRequestId does for Yoga's pipeline). */
export const withRequestId = <T>(id: string, work: () => T): T => current.run(id, work);

/** The id of the request being handled, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}

export function useRequestId(): Plugin {
  return {
    instrumentation: {
      request: ({ request }, wrapped) => withRequestId(requestIdOf(request), wrapped),
    },
  };
}
