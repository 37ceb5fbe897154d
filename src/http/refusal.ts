// Responses for requests refused before any route runs (rate limit, body size, a failing hook).
// Each surface keeps its own error shape: GraphQL clients get a standard GraphQL error with
// `extensions.code`, every other path the API's envelope `{error: {message, status}}`. The HTTP
// status is the same for both.
import type { ErrorCode } from '../errors.js';
import { errorResponse } from './envelope.js';

export interface RefusalInit {
  status: number;
  code: ErrorCode | 'INTERNAL_SERVER_ERROR';
  message: string;
  /** GraphQL's own wording, where it differs from the envelope's. */
  graphqlMessage?: string;
  headers?: Record<string, string>;
}

export function refusal(fetchAPI: { Response: typeof Response }, isGraphQL: boolean, init: RefusalInit): Response {
  if (!isGraphQL) return errorResponse(init.status, init.message, init.headers);
  const body = { errors: [{ message: init.graphqlMessage ?? init.message, extensions: { code: init.code } }] };
  return fetchAPI.Response.json(body, { status: init.status, headers: init.headers });
}
