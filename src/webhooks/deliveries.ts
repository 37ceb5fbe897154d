// What a webhook's owner may do to it besides registering and changing it: rotate its secret,
// redeliver a delivery, queue a ping. Only webhooks/ writes WebhookDelivery rows (the dispatcher
// queues events, the worker sends them, these the owner's requests), all through outbox.ts.
// `query` is the caller's selection of the row it answers with (a Pothos select or include).
import { badRequest, notFound } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';
import { requireOwnedWebhook } from './manage.js';
import { insertDelivery, readDelivery, readDeliveryStatus, requeueDelivery } from './outbox.js';
import { newSecret } from './signing.js';
import { writeWebhook } from './store.js';

/** A week: long enough for any receiver's deploy, short enough that an old secret does not linger. */
export const maxOverlapHours = 168;

/**
 * A new signing secret; for `overlapHours` (default 24) the old one signs too, so a receiver can
 * switch without dropping deliveries (0 drops it at once: a leaked secret).
 */
export async function rotateSecret<Q extends object>(
  prisma: PrismaClient,
  id: string,
  ownerKeyHash: string,
  overlapHours: number | null | undefined,
  query: Q,
) {
  const hours = overlapHours ?? 24;
  if (hours < 0 || hours > maxOverlapHours) throw badRequest(`overlapHours must be between 0 and ${maxOverlapHours}`);
  const current = await requireOwnedWebhook(prisma, id, ownerKeyHash);
  return writeWebhook(
    prisma,
    current.id,
    {
      secret: newSecret(),
      previousSecret: hours > 0 ? current.secret : null,
      previousSecretExpiresAt: hours > 0 ? new Date(Date.now() + hours * 3600_000) : null,
    },
    query,
  );
}

/** Sends a delivery again with the same webhook-id: a finished one gets a fresh retry schedule, a waiting one is due now. */
export async function redeliver<Q extends object>(prisma: PrismaClient, webhookId: string, deliveryId: string, ownerKeyHash: string, query: Q) {
  const webhook = await requireOwnedWebhook(prisma, webhookId, ownerKeyHash, { active: true });
  if (!isUuid(deliveryId)) throw notFound('Delivery not found');
  const delivery = await readDeliveryStatus(prisma, webhook.id, deliveryId);
  if (!delivery) throw notFound('Delivery not found');
  if (delivery.status === 'delivering') throw badRequest('Delivery is in flight');
  const finished = delivery.status === 'succeeded' || delivery.status === 'dead';
  // The status guard makes a redelivery racing the worker's claim a no-op rather than a double send.
  if (!(await requeueDelivery(prisma, deliveryId, delivery.status, finished))) throw badRequest('Delivery is in flight');
  return readDelivery(prisma, deliveryId, query);
}

/** Queues a signed test delivery {event: "ping", webhookId} (one attempt, no retries). */
export async function queuePing<Q extends object>(prisma: PrismaClient, id: string, ownerKeyHash: string, query: Q) {
  const webhook = await requireOwnedWebhook(prisma, id, ownerKeyHash, { active: true });
  return insertDelivery(prisma, webhook.id, 'ping', Buffer.from(JSON.stringify({ event: 'ping', webhookId: webhook.id })), query);
}
