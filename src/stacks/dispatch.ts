// Watched stacks in the webhook outbox path (webhooks/dispatcher.ts): once per published batch, the
// stacks it affects are found through the StackEntry key index (the batch's package and vendor
// names), never by reading every stack, and each is judged by the scan's own matching
// (scan/scan.ts matchCandidates) against the batch's issues. Each filter group then writes, for
// its stack webhooks, one outbox row with the matched issues and the components that matched.
//
// Bounded work: stacks are read in pages of `stacksPerPage` (their entries under the batch's keys
// only), and rows are written in statements of `rowsPerStatement`. Fairness between keys is the
// delivery worker's, as for every other row.
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { publishedIssueSql, servedIssueSql } from '../issues/served.js';
import { indexStack, matchCandidates, type CandidateRow } from '../scan/scan.js';
import type { WebhookEventKind } from '../webhooks/manage.js';
import { stackOf } from './watched.js';

/** One stack webhook's share of a batch: the issues affecting its stack, each with the entries that matched. */
interface StackHit {
  webhookId: string;
  matched: Map<string, string[]>;
}

/** A batch's hits by the webhook's filters (the dispatcher's group key). */
type BatchHits = Map<string, StackHit[]>;

/** The field a stack webhook's delivery adds to the spec's body (its only addition). */
export interface MatchedComponents {
  issueId: string;
  components: string[];
}

export interface StackDispatchOptions {
  stacksPerPage?: number;
  rowsPerStatement?: number;
}

export function createStackDispatch(db: Database, options: StackDispatchOptions = {}) {
  const prisma = db.prisma;
  const stacksPerPage = options.stacksPerPage ?? 1000;
  const rowsPerStatement = options.rowsPerStatement ?? 500;
  // Every filter group consumes the same event: the stacks are judged once, the first asks.
  const batches = new LRUCache<string, Promise<BatchHits>>({ max: 256, ttl: 10 * 60_000 });

  async function judge(eventId: string, kind: WebhookEventKind): Promise<BatchHits> {
    const [event] = await prisma.$queryRaw<{ issueIds: string[]; createdAt: Date }[]>`
      SELECT "issueIds"::text[] AS "issueIds", "createdAt" FROM "IssueEvent" WHERE "id" = ${eventId}::uuid`;
    const hits: BatchHits = new Map();
    if (!event?.issueIds.length) return hits;
    // A withdrawn issue is no longer served: it is judged on the record it was withdrawn with.
    const withdrawn = kind === 'issues_withdrawn';
    const rows = await db.read<CandidateRow>(Prisma.sql`
      SELECT id::text AS id, title, severity::text AS severity, "cveId", "packageNames", "vendorKeys", source->'affected' AS affected
        FROM "Issue" WHERE id = ANY(${event.issueIds}::uuid[]) AND ${withdrawn ? publishedIssueSql : servedIssueSql}`);
    const keys = [...new Set(rows.flatMap((r) => [...r.packageNames, ...r.vendorKeys]))];
    if (keys.length === 0) return hits;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const page = await prisma.$queryRaw<{ webhookId: string; filters: Prisma.JsonValue; entries: string[] }[]>`
        SELECT s."webhookId"::text AS "webhookId", w."filters", array_agg(DISTINCT s."entry") AS "entries"
          FROM "StackEntry" AS s JOIN "Webhook" AS w ON w."id" = s."webhookId"
         WHERE s."key" = ANY(${keys}::text[]) AND s."webhookId" > ${after}::uuid
           AND w."active" AND w."subscribedAt" <= ${event.createdAt} AND ${kind} = ANY(w."events")
         GROUP BY s."webhookId", w."filters"
         ORDER BY s."webhookId"
         LIMIT ${stacksPerPage}`;
      if (page.length === 0) break;
      after = page.at(-1)!.webhookId;
      const found: { webhookId: string; filters: Prisma.JsonValue; matched: Map<string, string[]> }[] = [];
      for (const stack of page) {
        // Only the entries under the batch's keys: the rest of the stack cannot match it.
        const matches = matchCandidates(indexStack(stackOf(stack.entries.map((entry) => ({ entry, ref: entry, name: entry })))), rows);
        if (matches.length || withdrawn) found.push({ ...stack, matched: new Map(matches.map((m) => [m.id, m.matchedPackages])) });
      }
      if (withdrawn && found.length) await addNotified(found, rows);
      if (kind === 'issues_updated' && found.length) {
        // An update reaches a stack only when it newly affects it: what it already knew is dropped.
        const known = await prisma.stackFinding.findMany({
          where: { webhookId: { in: found.map((f) => f.webhookId) }, issueId: { in: [...new Set(found.flatMap((f) => [...f.matched.keys()]))] } },
          select: { webhookId: true, issueId: true },
        });
        const byHook = new Map(found.map((f) => [f.webhookId, f]));
        for (const { webhookId, issueId } of known) byHook.get(webhookId)?.matched.delete(issueId);
      }
      for (const { webhookId, filters, matched } of found) {
        if (matched.size === 0) continue;
        const key = JSON.stringify(filters);
        hits.set(key, [...(hits.get(key) ?? []), { webhookId, matched }]);
      }
      if (page.length < stacksPerPage) break;
    }
    return hits;
  }

  /**
   * A withdrawal also reaches a stack that was told of the issue (a StackFinding) even when the
   * record it was withdrawn with no longer matches it; the components named are the stack's
   * entries under the issue's names.
   */
  async function addNotified(found: { webhookId: string; matched: Map<string, string[]> }[], rows: CandidateRow[]) {
    const known = await prisma.stackFinding.findMany({
      where: { webhookId: { in: found.map((f) => f.webhookId) }, issueId: { in: rows.map((r) => r.id) } },
      select: { webhookId: true, issueId: true },
    });
    const unmatched = known.filter((k) => !found.find((f) => f.webhookId === k.webhookId)!.matched.has(k.issueId));
    if (unmatched.length === 0) return;
    const keysOf = new Map(rows.map((r) => [r.id, new Set([...r.packageNames, ...r.vendorKeys])]));
    const entries = await prisma.stackEntry.findMany({
      where: { webhookId: { in: [...new Set(unmatched.map((k) => k.webhookId))] }, key: { in: [...new Set([...keysOf.values()].flatMap((k) => [...k]))] } },
      select: { webhookId: true, key: true, entry: true },
    });
    const byHook = new Map(found.map((f) => [f.webhookId, f]));
    for (const { webhookId, issueId } of unmatched) {
      const keys = keysOf.get(issueId)!;
      const named = entries.filter((e) => e.webhookId === webhookId && keys.has(e.key)).map((e) => e.entry);
      byHook.get(webhookId)!.matched.set(issueId, [...new Set(named)]);
    }
  }

  function hitsOf(eventId: string, kind: WebhookEventKind): Promise<BatchHits> {
    const key = `${kind}:${eventId}`;
    let hits = batches.get(key);
    if (!hits) {
      hits = judge(eventId, kind);
      batches.set(key, hits);
      // A failed judgement is not kept: the next group (or the replay) tries again.
      hits.catch(() => batches.delete(key));
    }
    return hits;
  }

  return {
    /**
     * Writes the outbox rows of one filter group's stack webhooks for a batch, as the group's
     * subscription served it (`issues`, REST shape, already narrowed by the filters; a withdrawal's
     * are ids only, as every webhook gets them): each row
     * holds the spec's body with the issues affecting that stack, plus matchedComponents. The
     * issues are recorded as known to the stack in the same transaction. Answers the rows written.
     */
    async write(filtersKey: string, batch: { eventId: string; issues: unknown[] }, kind: WebhookEventKind): Promise<number> {
      if (batch.issues.length === 0) return 0;
      const hits = (await hitsOf(batch.eventId, kind)).get(filtersKey);
      if (!hits?.length) return 0;
      const served = new Map(batch.issues.map((issue) => [(issue as { id: string }).id, issue]));
      const rows: { webhookId: string; payload: string; issueIds: string[] }[] = [];
      for (const { webhookId, matched } of hits) {
        const issueIds = [...matched.keys()].filter((id) => served.has(id));
        if (issueIds.length === 0) continue;
        const matchedComponents: MatchedComponents[] = issueIds.map((issueId) => ({ issueId, components: matched.get(issueId)! }));
        rows.push({ webhookId, issueIds, payload: JSON.stringify({ event: kind, issues: issueIds.map((id) => served.get(id)), matchedComponents }) });
      }
      let written = 0;
      for (let i = 0; i < rows.length; i += rowsPerStatement) {
        const chunk = rows.slice(i, i + rowsPerStatement);
        const pairs = chunk.flatMap((r) => r.issueIds.map((issueId) => [r.webhookId, issueId] as const));
        const [count] = await prisma.$transaction([
          // Joined with the webhook again: one deleted or paused since the batch was judged gets nothing.
          prisma.$executeRaw`
            INSERT INTO "WebhookDelivery" ("id", "webhookId", "eventId", "kind", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
            SELECT gen_random_uuid(), w."id", ${batch.eventId}::uuid, ${kind}, convert_to(x.payload, 'UTF8'), 'pending', 0, now(), now()
              FROM unnest(${chunk.map((r) => r.webhookId)}::uuid[], ${chunk.map((r) => r.payload)}::text[]) AS x("webhookId", payload)
              JOIN "Webhook" AS w ON w."id" = x."webhookId" AND w."active"
            ON CONFLICT ("webhookId", "eventId") DO NOTHING`,
          prisma.$executeRaw`
            INSERT INTO "StackFinding" ("webhookId", "issueId", "createdAt")
            SELECT s."webhookId", x."issueId", now()
              FROM unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) AS x("webhookId", "issueId")
              JOIN "WatchedStack" AS s ON s."webhookId" = x."webhookId"
            ON CONFLICT DO NOTHING`,
        ]);
        written += count;
      }
      return written;
    },
  };
}

export type StackDispatch = ReturnType<typeof createStackDispatch>;
