// A last line of defence for the app's own request hooks. An exception thrown from a plugin's
// onRequest escapes Yoga's error masking: @whatwg-node/server answers it with a 500 whose body is
// the error's stack trace (in-process, the fetch simply rejects). An exception from onResponse is
// not caught at all and would take the process down. Guarded hooks log the error with the request
// id and answer the same masked 500 as any other unexpected error, or a 503 when the database is
// out of reach.
import type { Plugin } from 'graphql-yoga';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import { errorResponse, INTERNAL_ERROR_MESSAGE } from './envelope.js';
import { currentRequestId } from './request-id.js';

function internalError(isGraphQL: boolean): Response {
  if (!isGraphQL) return errorResponse(500, INTERNAL_ERROR_MESSAGE);
  return Response.json({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }, { status: 500 });
}

/** The 503 of an outage (a hook that reads the database, such as an API key look-up). */
function unavailable(isGraphQL: boolean): Response {
  const { message, extensions } = serviceUnavailable();
  const { status, headers } = extensions.http as { status: number; headers: Record<string, string> };
  if (!isGraphQL) return errorResponse(status, message, headers);
  return Response.json({ errors: [{ message, extensions: { code: extensions.code } }] }, { status, headers });
}

export function guarded(plugin: Plugin, log: Logger, graphqlEndpoint: string): Plugin {
  const { onRequest, onResponse } = plugin;
  const guard: Plugin = { ...plugin };
  if (onRequest) {
    guard.onRequest = async (payload) => {
      try {
        await onRequest(payload);
      } catch (err) {
        const isGraphQL = payload.url.pathname === graphqlEndpoint;
        if (isDatabaseUnavailable(err)) {
          log.warn('database unavailable', { requestId: currentRequestId(), err });
          return payload.endResponse(unavailable(isGraphQL));
        }
        log.error('unexpected error', { requestId: currentRequestId(), err });
        payload.endResponse(internalError(isGraphQL));
      }
    };
  }
  if (onResponse) {
    guard.onResponse = async (payload) => {
      try {
        await onResponse(payload);
      } catch (err) {
        log.error('unexpected error', { requestId: currentRequestId(), err });
      }
    };
  }
  return guard;
}
