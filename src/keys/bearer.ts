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

/** Constant-time equality of two secrets (compares their digests, so lengths leak nothing). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
