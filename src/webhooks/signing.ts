// Delivery signatures. The HMAC key is the secret string exactly as the client received it (its
// ASCII bytes), as GitHub does, so both checks need nothing but the secret and the raw body:
// - X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body bytes> (the spec's header)
// - Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature = v1,<base64 HMAC of
//   "id.timestamp.body">, which off-the-shelf verifiers check (including replay windows). For a
//   while after a rotation it carries a second v1 signature made with the old secret, so a
//   receiver can switch secrets without dropping deliveries (the spec's header has one value).
import { createHmac, randomBytes } from 'node:crypto';

/** A new webhook secret: 32 random bytes as hex. */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

export function signatureHeaders(
  secrets: { secret: string; previousSecret?: string | null },
  messageId: string,
  timestamp: Date,
  body: Buffer,
): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const hex = createHmac('sha256', secrets.secret).update(body).digest('hex');
  const standard = (secret: string) => `v1,${createHmac('sha256', secret).update(`${messageId}.${seconds}.`).update(body).digest('base64')}`;
  return {
    'x-webhook-signature': `sha256=${hex}`,
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': [secrets.secret, secrets.previousSecret]
      .filter((s): s is string => !!s)
      .map(standard)
      .join(' '),
  };
}
