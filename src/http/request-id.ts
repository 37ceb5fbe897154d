// One id per request: the caller's X-Request-Id when it is sane, else a fresh UUID. It is echoed in
// the X-Request-Id response header (finish.ts) and is reachable from anywhere the request is being handled
// (error masking has no context argument), so a masked 500 can be found in the logs.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Plugin } from 'graphql-yoga';
import { edgeOf, type HeadersOf } from './edge.js';

const current = new AsyncLocalStorage<string>();

/** The request's id (its edge context's). */
export const requestIdOf = (request: HeadersOf): string => edgeOf(request).requestId;

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
