// The watched-stack aggregate's SQL (WatchedStack, StackEntry, StackFinding) for registration,
// findings, the feed and the webhook dispatcher's judgement of a batch (stacks/dispatch.ts): the one
// place its tables are reached (docs/architecture.md). The dispatcher's outbox rows and the
// findings written with them are in one transaction of webhooks/outbox.ts.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The components the owner's webhooks watch, `exceptWebhookId`'s own stack not counted (inside the caller's transaction). */
export async function countWatchedComponents(tx: Prisma.TransactionClient, ownerKeyHash: string, exceptWebhookId?: string): Promise<number> {
  const [row] = await tx.$queryRaw<{ n: number }[]>`
    SELECT coalesce(sum(jsonb_array_length(s."components")), 0)::int AS n
      FROM "WatchedStack" AS s JOIN "Webhook" AS w ON w."id" = s."webhookId"
     WHERE w."ownerKeyHash" = ${ownerKeyHash} AND w."id"::text <> ${exceptWebhookId ?? ''}`;
  return row?.n ?? 0;
}

/** Replaces the webhook's stack (inside the caller's transaction): its components, its index rows and the issues known to affect it. */
export async function writeStack(
  tx: Prisma.TransactionClient,
  webhookId: string,
  stack: { components: Prisma.InputJsonValue; entries: { key: string; entry: string }[]; known: string[] },
): Promise<void> {
  const { components, entries, known } = stack;
  await tx.watchedStack.upsert({ where: { webhookId }, create: { webhookId, components }, update: { components } });
  await tx.stackEntry.deleteMany({ where: { webhookId } });
  await tx.stackEntry.createMany({ data: entries.map((row) => ({ webhookId, ...row })) });
  await tx.stackFinding.deleteMany({ where: { webhookId } });
  if (known.length) await tx.stackFinding.createMany({ data: known.map((issueId) => ({ webhookId, issueId })), skipDuplicates: true });
}

/** Sets (or clears, with null) the hash of the stack's feed token; false when the webhook watches no stack. */
export async function writeFeedTokenHash(prisma: PrismaClient, webhookId: string, feedTokenHash: string | null): Promise<boolean> {
  const { count } = await prisma.watchedStack.updateMany({ where: { webhookId }, data: { feedTokenHash } });
  return count > 0;
}

/** The stack whose feed token has this hash, with its webhook's owner. */
export function readStackByFeedTokenHash(prisma: PrismaClient, feedTokenHash: string) {
  return prisma.watchedStack.findUnique({ where: { feedTokenHash }, select: { components: true, webhook: { select: { ownerKeyHash: true } } } });
}

/** The components the webhook's stack lists, as stored; undefined when it watches none. */
export async function readStackComponents(prisma: PrismaClient, webhookId: string): Promise<Prisma.JsonValue | undefined> {
  return (await prisma.watchedStack.findUnique({ where: { webhookId }, select: { components: true } }))?.components;
}

/** Stops the webhook watching (inside the caller's transaction); its index rows and findings go with it. */
export async function removeStack(tx: Prisma.TransactionClient, webhookId: string): Promise<void> {
  await tx.watchedStack.deleteMany({ where: { webhookId } });
}

/**
 * A page of the stack webhooks, in webhookId order after `after`, whose entries fall under `keys`
 * and that receive `kind` and subscribed before `publishedAt`; each with its filters and those
 * entries only.
 */
export function readStacksUnderKeys(
  prisma: PrismaClient,
  page: { keys: string[]; after: string; publishedAt: Date; kind: string; limit: number },
): Promise<{ webhookId: string; filters: Prisma.JsonValue; entries: string[] }[]> {
  const { keys, after, publishedAt, kind, limit } = page;
  return prisma.$queryRaw<{ webhookId: string; filters: Prisma.JsonValue; entries: string[] }[]>`
        SELECT s."webhookId"::text AS "webhookId", w."filters", array_agg(DISTINCT s."entry") AS "entries"
          FROM "StackEntry" AS s JOIN "Webhook" AS w ON w."id" = s."webhookId"
         WHERE s."key" = ANY(${keys}::text[]) AND s."webhookId" > ${after}::uuid
           AND w."active" AND w."subscribedAt" <= ${publishedAt} AND ${kind} = ANY(w."events")
         GROUP BY s."webhookId", w."filters"
         ORDER BY s."webhookId"
         LIMIT ${limit}`;
}

/** Which of these issues these stacks were already told of (their StackFinding rows). */
export function readKnownFindings(prisma: PrismaClient, webhookIds: string[], issueIds: string[]): Promise<{ webhookId: string; issueId: string }[]> {
  return prisma.stackFinding.findMany({ where: { webhookId: { in: webhookIds }, issueId: { in: issueIds } }, select: { webhookId: true, issueId: true } });
}

/** These stacks' entries under these keys. */
export function readStackEntries(prisma: PrismaClient, webhookIds: string[], keys: string[]): Promise<{ webhookId: string; key: string; entry: string }[]> {
  return prisma.stackEntry.findMany({ where: { webhookId: { in: webhookIds }, key: { in: keys } }, select: { webhookId: true, key: true, entry: true } });
}
