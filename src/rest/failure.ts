// How a REST request that failed is answered: the envelope with the highest status its errors
// carry, an unexpected one masked as a 500 and logged once.
import { GraphQLError } from 'graphql';
import { envelopeFor, errorResponse, logUnexpected } from '../http/envelope.js';
import type { Logger } from '../log.js';

/** The status, message and headers of the answer to these errors (the unexpected ones logged). */
export function failureOf(log: Logger, errors: readonly unknown[]): { status: number; message: string; headers: Record<string, string> } {
  const { status, message, headers, unexpected } = envelopeFor(errors);
  // Errors masked during execution were logged there; these escaped it (a plugin, the context).
  for (const err of unexpected) if (!(err instanceof GraphQLError)) logUnexpected(log, err);
  return { status, message, headers };
}

export function restFailure(log: Logger, errors: readonly unknown[]): Response {
  const { status, message, headers } = failureOf(log, errors);
  return errorResponse(status, message, headers);
}
