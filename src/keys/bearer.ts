// Bearer keys: read from the Authorization header, compared as SHA-256 digests in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

/** `request`: a Fetch Request, or anything that reads headers the same way (node's, before Yoga). */
export function bearerToken(request: { headers: Pick<Headers, 'get'> }): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * The one comparison of a presented key with a known one (a configured key, or a key's hash with
 * a stored hash): constant time, on digests so lengths leak nothing; false when either is absent.
 */
export function sameKey(presented: string | undefined, known: string | undefined): boolean {
  if (!presented || !known) return false;
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(known).digest());
}
