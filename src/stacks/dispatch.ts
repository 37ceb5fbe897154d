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
import type { Prisma } from '../generated/prisma/client.js';
import { readBatchCandidates } from '../issues/reads.js';
import { indexStack, matchCandidates, type CandidateRow } from '../scan/scan.js';
import type { WebhookEventKind } from '../webhooks/manage.js';
import { readEventIssues, writeStackDeliveries } from '../webhooks/outbox.js';
import { readKnownFindings, readStackEntries, readStacksUnderKeys } from './store.js';
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
    const event = await readEventIssues(prisma, eventId);
    const hits: BatchHits = new Map();
    if (!event?.issueIds.length) return hits;
    // A withdrawn issue is no longer served: it is judged on the record it was withdrawn with.
    const withdrawn = kind === 'issues_withdrawn';
    const rows = await readBatchCandidates(db.read, event.issueIds, withdrawn);
    const keys = [...new Set(rows.flatMap((r) => [...r.packageNames, ...r.vendorKeys]))];
    if (keys.length === 0) return hits;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const page = await readStacksUnderKeys(prisma, { keys, after, publishedAt: event.createdAt, kind, limit: stacksPerPage });
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
        const known = await readKnownFindings(
          prisma,
          found.map((f) => f.webhookId),
          [...new Set(found.flatMap((f) => [...f.matched.keys()]))],
        );
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
    const known = await readKnownFindings(
      prisma,
      found.map((f) => f.webhookId),
      rows.map((r) => r.id),
    );
    const unmatched = known.filter((k) => !found.find((f) => f.webhookId === k.webhookId)!.matched.has(k.issueId));
    if (unmatched.length === 0) return;
    const keysOf = new Map(rows.map((r) => [r.id, new Set([...r.packageNames, ...r.vendorKeys])]));
    const entries = await readStackEntries(prisma, [...new Set(unmatched.map((k) => k.webhookId))], [...new Set([...keysOf.values()].flatMap((k) => [...k]))]);
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
        const count = await writeStackDeliveries(prisma, batch.eventId, kind, chunk);
        written += count;
      }
      return written;
    },
  };
}

export type StackDispatch = ReturnType<typeof createStackDispatch>;
