// The webhook outbox's SQL (WebhookDelivery and DeliveryAttempt): the one place the dispatcher,
// the delivery worker and the owner's delivery requests reach those tables (docs/architecture.md).
// The registrations are in store.ts. `query` is the caller's selection of the row it answers with
// (a Pothos select or include), so that costs no second read.
import type { DeliveryStatus, Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { WebhookEventKind } from './manage.js';

// ---- the dispatcher

/** An IssueEvent row: the durable record of one published batch. */
export interface PublishedEvent {
  id: string;
  kind: WebhookEventKind;
  issueIds: string[];
  createdAt: Date;
}

/**
 * One outbox row per active webhook with these filters that subscribed before the event, receives
 * its kind and watches no stack (stack webhooks get theirs from writeStackDeliveries). Answers the
 * rows written.
 */
export function writeGroupDeliveries(
  prisma: PrismaClient,
  delivery: { eventId: string; kind: WebhookEventKind; payload: Buffer; filters: Prisma.JsonValue },
): Promise<number> {
  const { eventId, kind, payload, filters } = delivery;
  return prisma.$executeRaw`
      INSERT INTO "WebhookDelivery" ("id", "webhookId", "eventId", "kind", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
      SELECT gen_random_uuid(), w."id", e."id", ${kind}, ${payload}, 'pending', 0, now(), now()
        FROM "Webhook" AS w
        JOIN "IssueEvent" AS e ON e."id" = ${eventId}::uuid
       WHERE w."active" AND w."filters" = ${JSON.stringify(filters)}::jsonb AND w."subscribedAt" <= e."createdAt"
         AND ${kind} = ANY(w."events")
         AND NOT EXISTS (SELECT 1 FROM "WatchedStack" AS s WHERE s."webhookId" = w."id")
      ON CONFLICT ("webhookId", "eventId") DO NOTHING`;
}

/** Events since `since` still missing a row for one of the webhooks with these filters, oldest first. */
export function readEventsToReplay(prisma: PrismaClient, filters: Prisma.JsonValue, since: Date): Promise<PublishedEvent[]> {
  return prisma.$queryRaw<PublishedEvent[]>`
      SELECT e."id", e."kind", e."issueIds", e."createdAt" FROM "IssueEvent" AS e
       WHERE e."createdAt" >= ${since}
         AND EXISTS (
           SELECT 1 FROM "Webhook" AS w
            WHERE w."active" AND w."filters" = ${JSON.stringify(filters)}::jsonb AND w."subscribedAt" <= e."createdAt"
              AND e."kind" = ANY(w."events")
              AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" AS d WHERE d."webhookId" = w."id" AND d."eventId" = e."id"))
       ORDER BY e."createdAt", e."id"`;
}

/** The issues of one published batch and when it was published; undefined when there is no such event. */
export async function readEventIssues(prisma: PrismaClient, eventId: string): Promise<{ issueIds: string[]; createdAt: Date } | undefined> {
  const [event] = await prisma.$queryRaw<{ issueIds: string[]; createdAt: Date }[]>`
      SELECT "issueIds"::text[] AS "issueIds", "createdAt" FROM "IssueEvent" WHERE "id" = ${eventId}::uuid`;
  return event;
}

/**
 * Stack webhooks' outbox rows for one event, each with its own payload, and the issues they name
 * recorded as known to the stack, in one transaction. Joined with the webhook again: one deleted
 * or paused since the batch was judged gets nothing. Answers the rows written.
 */
export async function writeStackDeliveries(
  prisma: PrismaClient,
  eventId: string,
  kind: WebhookEventKind,
  rows: { webhookId: string; payload: string; issueIds: string[] }[],
): Promise<number> {
  const pairs = rows.flatMap((r) => r.issueIds.map((issueId) => [r.webhookId, issueId] as const));
  const [count] = await prisma.$transaction([
    prisma.$executeRaw`
            INSERT INTO "WebhookDelivery" ("id", "webhookId", "eventId", "kind", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
            SELECT gen_random_uuid(), w."id", ${eventId}::uuid, ${kind}, convert_to(x.payload, 'UTF8'), 'pending', 0, now(), now()
              FROM unnest(${rows.map((r) => r.webhookId)}::uuid[], ${rows.map((r) => r.payload)}::text[]) AS x("webhookId", payload)
              JOIN "Webhook" AS w ON w."id" = x."webhookId" AND w."active"
            ON CONFLICT ("webhookId", "eventId") DO NOTHING`,
    prisma.$executeRaw`
            INSERT INTO "StackFinding" ("webhookId", "issueId", "createdAt")
            SELECT s."webhookId", x."issueId", now()
              FROM unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) AS x("webhookId", "issueId")
              JOIN "WatchedStack" AS s ON s."webhookId" = x."webhookId"
            ON CONFLICT DO NOTHING`,
  ]);
  return count;
}

// ---- the delivery worker

export interface ClaimedRow {
  id: string;
  webhookId: string;
  kind: string;
  payload: Uint8Array;
  attempts: number;
  url: string;
  secret: string;
  /** The secret before the last rotation, while it still signs too. */
  previousSecret: string | null;
  /** The claim's expiry, which doubles as its token: only the current claim may record an outcome. */
  lockedUntil: Date;
}

/** What one claim may take: rows, fair shares (counting what is in flight) and the lease. */
export interface ClaimLimits {
  limit: number;
  perWebhook: number;
  perKey: number;
  perHost: number;
  leaseMs: number;
}

/**
 * Claims due rows with FOR UPDATE SKIP LOCKED, so no two workers send the same row at once. A row
 * is due when it waits for an attempt, or when its claim expired (its worker died). Due rows are
 * ranked within their webhook, key and host, counting what is already in flight there, and only
 * those within every share are taken: keys and webhooks take turns, oldest first.
 */
export function claimDeliveries(prisma: PrismaClient, { limit, perWebhook, perKey, perHost, leaseMs }: ClaimLimits): Promise<ClaimedRow[]> {
  return prisma.$queryRaw<ClaimedRow[]>`
    WITH busy AS (
      SELECT b."webhookId", bw."ownerKeyHash" AS "key", substring(bw."url" from '^[a-z]+://([^/?#]*)') AS "host"
        FROM "WebhookDelivery" AS b JOIN "Webhook" AS bw ON bw."id" = b."webhookId"
       WHERE b."status" = 'delivering' AND b."lockedUntil" >= now()
    ),
    due AS (
      SELECT q."id", qw."ownerKeyHash" AS "key", substring(qw."url" from '^[a-z]+://([^/?#]*)') AS "host", q."nextAttemptAt",
             row_number() OVER (PARTITION BY q."webhookId" ORDER BY q."nextAttemptAt", q."id")
               + (SELECT count(*) FROM busy WHERE busy."webhookId" = q."webhookId") AS "hookRank"
        FROM "WebhookDelivery" AS q JOIN "Webhook" AS qw ON qw."id" = q."webhookId"
       WHERE qw."active"
         AND ((q."status" IN ('pending', 'failed') AND q."nextAttemptAt" <= now())
           OR (q."status" = 'delivering' AND q."lockedUntil" < now()))
    ),
    ranked AS (
      SELECT u."id", u."host", u."hookRank", u."nextAttemptAt",
             row_number() OVER (PARTITION BY u."key" ORDER BY u."hookRank", u."nextAttemptAt", u."id")
               + (SELECT count(*) FROM busy WHERE busy."key" = u."key") AS "keyRank"
        FROM due AS u
       WHERE u."hookRank" <= ${perWebhook}
    ),
    -- A host's places go to rows within their key's share only: ranked over every due row, a
    -- key over its share could take the host's first places and leave them unused for ever.
    hosted AS (
      SELECT r."id", r."keyRank", r."hookRank", r."nextAttemptAt",
             row_number() OVER (PARTITION BY r."host" ORDER BY r."keyRank", r."hookRank", r."nextAttemptAt", r."id")
               + (SELECT count(*) FROM busy WHERE busy."host" = r."host") AS "hostRank"
        FROM ranked AS r
       WHERE r."keyRank" <= ${perKey}
    ),
    chosen AS (
      SELECT h."id" FROM hosted AS h
       WHERE h."hostRank" <= ${perHost}
       ORDER BY h."keyRank", h."hookRank", h."nextAttemptAt"
       LIMIT ${limit}
    )
    UPDATE "WebhookDelivery" AS d
       SET "status" = 'delivering',
           "attempts" = d."attempts" + 1,
           "lockedUntil" = now() + ${leaseMs} * interval '1 millisecond'
      FROM "Webhook" AS w
     WHERE w."id" = d."webhookId"
       AND d."id" IN (
         -- Locked and checked again: another worker may have claimed one meanwhile.
         SELECT q."id" FROM "WebhookDelivery" AS q
          WHERE q."id" IN (SELECT "id" FROM chosen)
            AND ((q."status" IN ('pending', 'failed') AND q."nextAttemptAt" <= now())
              OR (q."status" = 'delivering' AND q."lockedUntil" < now()))
            FOR UPDATE OF q SKIP LOCKED)
    RETURNING d."id", d."webhookId", d."kind", d."payload", d."attempts", d."lockedUntil", w."url", w."secret",
              CASE WHEN w."previousSecretExpiresAt" > now() THEN w."previousSecret" END AS "previousSecret"`;
}

/** One attempt's outcome as written: the delivery's new state and what it means for its webhook's health. */
export interface OutcomeRow {
  id: string;
  /** The claim the attempt ran under (its lockedUntil), ISO. */
  token: string;
  status: 'succeeded' | 'dead' | 'failed';
  completed_at: string | null;
  next_attempt_at: string | null;
  status_code: number | null;
  error: string | null;
  attempted_at: string;
  duration_ms: number;
  webhook_id: string;
  /** The outcome's place in its batch: health follows this order. */
  seq: number;
  ok: boolean;
  gone: boolean;
  failure: boolean;
  dead: boolean;
}

/**
 * Records a batch of attempts in one transaction of two statements: the attempt rows, then the
 * delivery rows with their webhooks' health.
 */
export async function writeOutcomes(prisma: PrismaClient, rows: OutcomeRow[], deadLimit: number): Promise<void> {
  const deadReason = `${deadLimit} deliveries in a row failed every retry`;
  await prisma.$transaction([
    // Every attempt is recorded, even one whose claim expired meanwhile, unless its delivery is
    // gone (the webhook was deleted while it was in flight).
    prisma.$executeRaw`
      INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "attemptedAt", "statusCode", "error", "durationMs")
      SELECT gen_random_uuid(), a."id", a."attempted_at", a."status_code", a."error", a."duration_ms"
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
             AS a("id" uuid, "attempted_at" timestamptz, "status_code" int, "error" text, "duration_ms" int)
       WHERE EXISTS (SELECT 1 FROM "WebhookDelivery" AS d WHERE d."id" = a."id")`,
    // One statement: the delivery rows, then the health of their webhooks from the rows that were
    // actually updated. The claim guards both: a row deleted meanwhile, or claimed again after this
    // claim expired, is left alone and counts for nothing.
    // Health follows the order of the outcomes: a success resets the counters, and only failures
    // after the last success of the batch add to them.
    prisma.$executeRaw`
      WITH u AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
          "id" uuid, "token" timestamptz, "status" text, "completed_at" timestamptz, "next_attempt_at" timestamptz,
          "status_code" int, "error" text, "webhook_id" uuid, "seq" int, "ok" boolean, "gone" boolean, "failure" boolean, "dead" boolean)
      ),
      applied AS (
        UPDATE "WebhookDelivery" AS d
           SET "status" = u."status"::"DeliveryStatus",
               "completedAt" = u."completed_at",
               "nextAttemptAt" = COALESCE(u."next_attempt_at", d."nextAttemptAt"),
               "lockedUntil" = NULL,
               "lastStatusCode" = u."status_code",
               "lastError" = u."error"
          FROM u
         WHERE d."id" = u."id" AND d."status" = 'delivering' AND d."lockedUntil" = u."token"
        RETURNING d."id"
      ),
      done AS (SELECT u.* FROM u JOIN applied ON applied."id" = u."id"),
      last_ok AS (
        SELECT "webhook_id", max("seq") FILTER (WHERE "ok") AS "seq", bool_or("gone") AS "gone" FROM done GROUP BY "webhook_id"
      ),
      health AS (
        SELECT l."webhook_id" AS "id", l."seq" IS NOT NULL AS "reset", l."gone",
               count(*) FILTER (WHERE d."failure" AND d."seq" > COALESCE(l."seq", -1))::int AS "failures",
               count(*) FILTER (WHERE d."failure" AND d."dead" AND d."seq" > COALESCE(l."seq", -1))::int AS "dead"
          FROM last_ok AS l JOIN done AS d ON d."webhook_id" = l."webhook_id"
         GROUP BY l."webhook_id", l."seq", l."gone"
      )
      UPDATE "Webhook" AS w
         SET "consecutiveFailures" = CASE WHEN h."reset" THEN 0 ELSE w."consecutiveFailures" END + h."failures",
             "deadDeliveries" = CASE WHEN h."reset" THEN 0 ELSE w."deadDeliveries" END + h."dead",
             "active" = w."active" AND NOT h."gone"
                        AND CASE WHEN h."reset" THEN 0 ELSE w."deadDeliveries" END + h."dead" < ${deadLimit},
             "deactivatedReason" = CASE
                 WHEN NOT w."active" THEN w."deactivatedReason"
                 WHEN h."gone" THEN 'receiver answered 410 Gone'
                 WHEN CASE WHEN h."reset" THEN 0 ELSE w."deadDeliveries" END + h."dead" >= ${deadLimit} THEN ${deadReason}
                 ELSE w."deactivatedReason" END,
             "updatedAt" = now()
        FROM health AS h
       WHERE w."id" = h."id"`,
  ]);
}

// ---- the owner's requests

/** A delivery's status, when it belongs to the webhook. */
export function readDeliveryStatus(prisma: PrismaClient, webhookId: string, deliveryId: string) {
  return prisma.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId }, select: { status: true } });
}

/**
 * Makes a delivery due now, if it is still in `status` (so a redelivery racing the worker's claim
 * is a no-op rather than a double send); `resetAttempts` gives it a fresh retry schedule. False
 * when its status changed meanwhile.
 */
export async function requeueDelivery(prisma: PrismaClient, deliveryId: string, status: DeliveryStatus, resetAttempts: boolean): Promise<boolean> {
  const { count } = await prisma.webhookDelivery.updateMany({
    where: { id: deliveryId, status },
    data: { status: 'pending', nextAttemptAt: new Date(), completedAt: null, ...(resetAttempts ? { attempts: 0 } : {}) },
  });
  return count > 0;
}

/** One delivery by id, as `query` selects; throws when there is none. */
export function readDelivery<Q extends object>(prisma: PrismaClient, deliveryId: string, query: Q) {
  return prisma.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: deliveryId } });
}

/** Queues a delivery of `kind` outside any event (a ping), answered as `query` selects. */
export function insertDelivery<Q extends object>(prisma: PrismaClient, webhookId: string, kind: string, payload: Uint8Array<ArrayBuffer>, query: Q) {
  return prisma.webhookDelivery.create({ ...query, data: { webhookId, kind, payload } });
}

/** A page of a webhook's deliveries (`where` names the webhook and any status), newest first. */
export function listDeliveries<Q extends object>(
  prisma: PrismaClient,
  where: Prisma.WebhookDeliveryWhereInput,
  page: { limit: number; offset: number },
  query: Q,
) {
  return prisma.webhookDelivery.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: page.limit, skip: page.offset });
}

/** How many deliveries match `where`. */
export function countDeliveries(prisma: PrismaClient, where: Prisma.WebhookDeliveryWhereInput): Promise<number> {
  return prisma.webhookDelivery.count({ where });
}
