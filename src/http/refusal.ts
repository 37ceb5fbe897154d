// Responses for requests refused before any route runs (rate limit, body size). Each surface keeps
// its own error shape: GraphQL clients get a standard GraphQL error with `extensions.code`, every
// other path the API's envelope `{error: {message, status}}`. The HTTP status is the same for both.
import type { ErrorCode } from '../errors.js';
import { errorResponse } from './envelope.js';

export interface RefusalInit {
  status: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

export function refusal(fetchAPI: { Response: typeof Response }, isGraphQL: boolean, init: RefusalInit): Response {
  if (!isGraphQL) return errorResponse(init.status, init.message, init.headers);
  const body = { errors: [{ message: init.message, extensions: { code: init.code } }] };
  return fetchAPI.Response.json(body, { status: init.status, headers: init.headers });
}
