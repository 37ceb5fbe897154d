// Bearer keys: read from the Authorization header, compared as SHA-256 digests in constant time.
// Admin operations need the bearer ADMIN_API_KEY; with no key configured they are closed to everyone.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { unauthenticated } from '../errors.js';

export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of two secrets (compares their digests, so lengths leak nothing). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function requireAdminKey(config: Pick<Config, 'adminApiKey'>, request: Request): void {
  const expected = config.adminApiKey;
  const presented = bearerToken(request);
  if (!expected || !presented || !secretsEqual(presented, expected)) throw unauthenticated('Missing or invalid admin bearer key');
}
