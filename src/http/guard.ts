// A last line of defence for the app's own request hooks. An exception thrown from a plugin's
// onRequest escapes Yoga's error masking: @whatwg-node/server answers it with a 500 whose body is
// the error's stack trace (in-process, the fetch simply rejects). An exception from onResponse is
// not caught at all and would take the process down. Guarded hooks log the error with the request
// id and answer the same masked 500 as any other unexpected error, or a 503 when the database is
// out of reach.
import type { Plugin } from 'graphql-yoga';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import type { ErrorCode } from '../errors.js';
import { INTERNAL_ERROR_MESSAGE, logUnexpected } from './envelope.js';
import { refusal } from './refusal.js';

/** The masked 500, or the 503 of an outage (a hook that reads the database, such as an API key look-up). */
function failure(isGraphQL: boolean, err: unknown): Response {
  if (!isDatabaseUnavailable(err)) {
    return refusal(globalThis, isGraphQL, { status: 500, code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, graphqlMessage: 'Unexpected error.' });
  }
  const { message, extensions } = serviceUnavailable();
  const { status, headers } = extensions.http as { status: number; headers: Record<string, string> };
  return refusal(globalThis, isGraphQL, { status, code: extensions.code as ErrorCode, message, headers });
}

type OnRequest = NonNullable<Plugin['onRequest']>;

/**
 * An onRequest hook for the few requests `concerns` picks: a route plugin states which requests are
 * its own in one place, and every other request passes it without entering the hook.
 */
export const onRequestFor =
  (concerns: (url: URL, request: Request) => boolean, hook: OnRequest): OnRequest =>
  (payload) =>
    concerns(payload.url, payload.request) ? hook(payload) : undefined;

const noValue = () => undefined;
const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | undefined)?.then === 'function';

/**
 * Hooks that answer at once stay synchronous: Yoga runs a synchronous hook without a promise, and
 * every request passes through all of them (an async wrapper cost each request two dozen promises
 * and microtask turns).
 */
export function guarded(plugin: Plugin, log: Logger, graphqlEndpoint: string): Plugin {
  const { onRequest, onResponse } = plugin;
  const guard: Plugin = { ...plugin };
  if (onRequest) {
    type Payload = Parameters<typeof onRequest>[0];
    const failed = (payload: Payload, err: unknown) => {
      logUnexpected(log, err);
      payload.endResponse(failure(payload.url.pathname === graphqlEndpoint, err));
    };
    guard.onRequest = (payload) => {
      try {
        const result: unknown = onRequest(payload);
        if (isPromise(result)) return result.then(noValue, (err: unknown) => failed(payload, err));
      } catch (err) {
        failed(payload, err);
      }
    };
  }
  if (onResponse) {
    const failed = (err: unknown) => logUnexpected(log, err);
    guard.onResponse = (payload) => {
      try {
        const result: unknown = onResponse(payload);
        if (isPromise(result)) return result.then(noValue, failed);
      } catch (err) {
        failed(err);
      }
    };
  }
  return guard;
}
