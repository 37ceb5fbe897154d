// The webhook registrations' SQL (the Webhook table): the one place requests and the dispatcher
// reach it (docs/architecture.md). The outbox's rows (deliveries and their attempts) are in
// outbox.ts. `query` is the caller's selection of the row it answers with (a Pothos select or
// include), so that costs no second read.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * Runs `work` in one transaction that first takes the owner's lock: its registrations and stack
 * writes are serialised on every instance.
 */
export function inOwnerTransaction<T>(prisma: PrismaClient, ownerKeyHash: string, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtextextended(${ownerKeyHash}, 0))) AS locked`;
    return work(tx);
  });
}

/** How many webhooks the owner has registered. */
export function countOwnerWebhooks(db: Prisma.TransactionClient, ownerKeyHash: string): Promise<number> {
  return db.webhook.count({ where: { ownerKeyHash } });
}

/** Inserts a webhook and answers it as `query` selects. */
export function insertWebhook<Q extends object>(db: Prisma.TransactionClient, data: Prisma.WebhookCreateInput, query: Q) {
  return db.webhook.create({ ...query, data });
}

/** Inserts a webhook and answers its id. */
export async function insertWebhookId(db: Prisma.TransactionClient, data: Prisma.WebhookCreateInput): Promise<string> {
  return (await db.webhook.create({ data, select: { id: true } })).id;
}

/** One webhook by id, as `query` selects; throws when there is none. */
export function readWebhook<Q extends object>(db: Prisma.TransactionClient, id: string, query: Q) {
  return db.webhook.findUniqueOrThrow({ ...query, where: { id } });
}

/** What updating, rotating and the owner's delivery requests read of one webhook; null when the owner has none with that id. */
export function readOwnedWebhookState(db: Prisma.TransactionClient, where: Prisma.WebhookWhereInput) {
  return db.webhook.findFirst({ where, select: { id: true, url: true, filters: true, active: true, events: true, secret: true } });
}

/** One webhook matching `where` (its id and owner), as `query` selects; null when there is none. */
export function findWebhook<Q extends object>(db: Prisma.TransactionClient, where: Prisma.WebhookWhereInput, query: Q) {
  return db.webhook.findFirst({ ...query, where });
}

/** The owner's webhooks, oldest first, as `query` selects. */
export function listOwnerWebhooks<Q extends object>(db: Prisma.TransactionClient, ownerKeyHash: string, query: Q) {
  return db.webhook.findMany({ ...query, where: { ownerKeyHash }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Changes one webhook and answers it as `query` selects. */
export function writeWebhook<Q extends object>(db: Prisma.TransactionClient, id: string, data: Prisma.WebhookUpdateInput, query: Q) {
  return db.webhook.update({ ...query, where: { id }, data });
}

/** Deletes the webhook matching `where` (its id and owner) with its deliveries; false when there was none. */
export async function deleteWebhook(db: Prisma.TransactionClient, where: Prisma.WebhookWhereInput): Promise<boolean> {
  const { count } = await db.webhook.deleteMany({ where });
  return count > 0;
}

/** The distinct filters among the active webhooks: one dispatch group each. */
export async function readActiveFilters(prisma: PrismaClient): Promise<Prisma.JsonValue[]> {
  const rows = await prisma.$queryRaw<{ filters: Prisma.JsonValue }[]>`
      SELECT DISTINCT "filters" FROM "Webhook" WHERE "active"`;
  return rows.map((r) => r.filters);
}
