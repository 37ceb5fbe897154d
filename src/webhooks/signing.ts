// Delivery signatures. The HMAC key is the secret string exactly as the client received it (its
// ASCII bytes), as GitHub does, so both checks need nothing but the secret and the raw body:
// - X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body bytes> (the spec's header)
// - Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature = v1,<base64 HMAC of
//   "id.timestamp.body">, which off-the-shelf verifiers check (including replay windows).
import { createHmac, randomBytes } from 'node:crypto';

/** A new webhook secret: 32 random bytes as hex. */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

export function signatureHeaders(secret: string, messageId: string, timestamp: Date, body: Buffer): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const standard = createHmac('sha256', secret).update(`${messageId}.${seconds}.`).update(body).digest('base64');
  return {
    'x-webhook-signature': `sha256=${hex}`,
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${standard}`,
  };
}
