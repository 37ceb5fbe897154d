// The REST error envelope {error: {message, status}} (docs/api.md, "REST"), from GraphQL errors or
// a bare status. Expected errors carry their status in extensions.http; request errors (a variable GraphQL
// itself rejected) are 400s; anything else is a 500 whose message says nothing about the cause.
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import { currentRequestId } from './request-id.js';

export interface ErrorEnvelope {
  error: { message: string; status: number };
}

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

const defaultMessages: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: INTERNAL_ERROR_MESSAGE,
  503: 'Service unavailable',
};

export function errorEnvelope(status: number, message?: string): ErrorEnvelope {
  return { error: { message: message ?? defaultMessages[status] ?? `HTTP ${status}`, status } };
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function errorResponse(status: number, message?: string, headers: HeadersInit = {}): Response {
  const response = Response.json(errorEnvelope(status, message), { status, headers });
  response.headers.set('Content-Type', JSON_TYPE);
  return response;
}

/** The envelope as bytes with its headers, as errorResponse would send it (for answers built without a Response). */
export function errorAnswer(status: number, message?: string, headers: Record<string, string> = {}) {
  const body = Buffer.from(JSON.stringify(errorEnvelope(status, message)));
  return { status, headers: { ...headers, 'content-type': JSON_TYPE, 'content-length': String(body.length) }, body };
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
}

function httpOf(error: unknown): HttpExtension | undefined {
  return error instanceof GraphQLError ? (error.extensions?.http as HttpExtension | undefined) : undefined;
}

/** True for GraphQL errors about the request itself (not raised while resolving, not masked). */
function isRequestError(error: unknown): error is GraphQLError {
  return (
    error instanceof GraphQLError && !error.path && !error.originalError && error.extensions?.code !== 'INTERNAL_SERVER_ERROR' && !error.extensions?.unexpected
  );
}

/**
 * Chooses the status and message for a failed operation: the highest explicit status wins (a
 * database out of reach is a 503), then request errors (400); the rest is a masked 500.
 * `unexpected` lists the errors that carried no status and were no request error, for the log.
 */
export function envelopeFor(errors: readonly unknown[]): { status: number; message: string; headers: Record<string, string>; unexpected: unknown[] } {
  let chosen: { status: number; message: string } | undefined;
  const headers: Record<string, string> = {};
  const unexpected: unknown[] = [];
  for (const error of errors) {
    const http = httpOf(error);
    if (http?.status) {
      Object.assign(headers, http.headers ?? {});
      if (!chosen || http.status > chosen.status) chosen = { status: http.status, message: (error as GraphQLError).message };
    } else if (isRequestError(error)) {
      if (!chosen) chosen = { status: 400, message: error.message };
    } else if (isDatabaseUnavailable(error)) {
      // An outage is a 503 wherever it surfaces: a plain route's read, a request hook's key look-up.
      // Still listed with the unexpected errors, so callers log it (logUnexpected: as a warning).
      const outage = serviceUnavailable();
      const http = outage.extensions.http as Required<HttpExtension>;
      Object.assign(headers, http.headers);
      if (!chosen || http.status > chosen.status) chosen = { status: http.status, message: outage.message };
      unexpected.push(error);
    } else {
      unexpected.push(error);
    }
  }
  if (!chosen || (unexpected.length && chosen.status < 500)) chosen = { status: 500, message: INTERNAL_ERROR_MESSAGE };
  // A 503 (an outage) says so and when to retry; any other 5xx says nothing about its cause.
  if (chosen.status >= 500 && chosen.status !== 503) chosen.message = INTERNAL_ERROR_MESSAGE;
  return { ...chosen, headers, unexpected };
}

/**
 * The status and message for an error a plain (non-GraphQL) route caught; an unexpected one is
 * logged with the request id, since its wording never reaches the client.
 */
export function caughtFailure(err: unknown, log: Logger): { status: number; message: string; headers: Record<string, string> } {
  const { status, message, headers, unexpected } = envelopeFor([err]);
  for (const e of unexpected) logUnexpected(log, e);
  return { status, message, headers };
}

/**
 * How every request path logs an error it did not expect, once, with the request id (its wording
 * never reaches the client). A database out of reach is an outage, not a fault: a warning.
 */
export function logUnexpected(log: Logger, err: unknown): void {
  if (isDatabaseUnavailable(err)) log.warn('database unavailable', { requestId: currentRequestId(), err });
  else log.error('unexpected error', { requestId: currentRequestId(), err });
}
