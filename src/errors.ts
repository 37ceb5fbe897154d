// Expected errors carry a code and an HTTP status; the GraphQL layer exposes them, the REST layer
// turns them into the {error: {message, status}} envelope. Anything else is masked.
import { GraphQLError } from 'graphql';

export type ErrorCode = 'BAD_REQUEST' | 'UNAUTHENTICATED' | 'NOT_FOUND' | 'RATE_LIMITED' | 'PAYLOAD_TOO_LARGE' | 'SERVICE_UNAVAILABLE';

const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

export function appError(code: ErrorCode, message: string): GraphQLError {
  // RFC 9110 section 11.6.1: a 401 names its scheme.
  const headers = code === 'UNAUTHENTICATED' ? { 'WWW-Authenticate': 'Bearer' } : undefined;
  return new GraphQLError(message, { extensions: { code, http: { status: statusOf[code], ...(headers && { headers }) } } });
}

export const badRequest = (message: string) => appError('BAD_REQUEST', message);
export const notFound = (message = 'Not found') => appError('NOT_FOUND', message);
export const unauthenticated = (message = 'Missing or invalid bearer key') => appError('UNAUTHENTICATED', message);
