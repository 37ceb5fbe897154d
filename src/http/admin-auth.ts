// Admin operations (ingest, digests) need the bearer ADMIN_API_KEY; with no key configured they
// are closed to everyone.
import type { Context } from '../context.js';
import { unauthenticated } from '../errors.js';
import { bearerToken, secretsEqual } from './auth.js';

export function requireAdminKey(ctx: Pick<Context, 'config' | 'request'>): void {
  const expected = ctx.config.adminApiKey;
  const presented = bearerToken(ctx.request);
  if (!expected || !presented || !secretsEqual(presented, expected)) throw unauthenticated('Missing or invalid admin bearer key');
}
