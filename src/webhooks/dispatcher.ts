// The dispatcher turns published batches into outbox rows. It consumes Subscription.newIssues
// through the schema (graphql's own subscribe, so a webhook gets exactly what a GraphQL subscriber
// with its filters gets, serialised as the REST Issue shape), once per distinct filter among the
// active webhooks, and writes one WebhookDelivery per (webhook, event) with a single INSERT ...
// SELECT. The unique (webhookId, eventId) makes it idempotent: several instances hearing the same
// event through Redis, a replay after a crash, or a restart all end with one row per pair.
//
// Nothing is lost between publish and outbox: each group replays recent events that still lack
// a row for one of its webhooks (IssueEvent rows are the durable record of what was published)
// through the same subscription, fed from the database instead of the pub/sub, when it starts,
// after an error, at process start-up, and every minute (Redis pub/sub drops what is published
// while a subscriber reconnects).
//
// Webhooks that opted in to issues_updated or issues_withdrawn get those events from the same
// replay (the relay publishes new_issues only), so they arrive within a sweep interval.
import type { Database } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';
import type { NewIssuesEvent, NewIssuesSource } from '../pubsub.js';
import { createStackDispatch } from '../stacks/dispatch.js';
import type { WebhookEventKind } from './manage.js';
import { type PublishedEvent, readEventsToReplay, writeGroupDeliveries } from './outbox.js';
import { readActiveFilters } from './store.js';

export interface DispatcherOptions {
  /** How often the set of webhook filters is re-read (webhooks registered on other instances). */
  refreshIntervalMs?: number;
  /** How far back a replay looks for events without delivery rows. */
  catchUpWindowMs?: number;
  /** How often every group replays what it is still missing. */
  sweepIntervalMs?: number;
  /** Pause before a failed group subscription is started again. */
  restartDelayMs?: number;
  /** Called after deliveries were written (the worker's wake-up). */
  onDeliveries?: (count: number) => void;
}

interface Group {
  key: string;
  filters: Prisma.JsonValue;
  iterator?: AsyncIterator<DispatchBatch>;
  loop?: Promise<void>;
  stopped: boolean;
  /**
   * Events a replay has run through this group, with their creation time: one that matched none
   * of the group's issues leaves no row behind and would otherwise be replayed on every sweep.
   */
  replayed: Map<string, number>;
  /** When the last replay started: the next one looks back from there (less an overlap), not a whole day. */
  lastReplayAt?: number;
}

/**
 * How far before the previous replay a sweep looks again: an event row's createdAt is its
 * transaction's start, so a long ingest transaction commits rows that are already minutes old.
 */
const replayOverlapMs = 5 * 60_000;

/** One batch as a webhook receives it: its event and its issues in the REST Issue shape. */
export interface DispatchBatch {
  eventId: string;
  issues: unknown[];
}

/**
 * Subscription.newIssues with a webhook group's filters, fed from `source`: given by main.ts, which
 * builds it from the schema (a webhook gets what a GraphQL subscriber with its filters gets).
 */
export type IssueStream = (filters: Prisma.JsonValue, source: NewIssuesSource) => Promise<AsyncIterator<DispatchBatch>>;

export function createDispatcher(services: { db: Database; log: Logger; pubsub: NewIssuesSource }, issueStream: IssueStream, options: DispatcherOptions = {}) {
  const { db, log } = services;
  const prisma = db.prisma;
  const refreshIntervalMs = options.refreshIntervalMs ?? 5_000;
  const catchUpWindowMs = options.catchUpWindowMs ?? 24 * 3600_000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const restartDelayMs = options.restartDelayMs ?? 1_000;
  const groups = new Map<string, Group>();
  let running = false;
  let timers: NodeJS.Timeout[] = [];
  let refreshing: Promise<void> = Promise.resolve();
  const stacks = createStackDispatch(db);

  /**
   * One outbox row per active webhook of the group that subscribed before the event and receives
   * its kind (new_issues by default; the other kinds by opting in). A webhook watching a stack gets
   * only the issues affecting it, withdrawals included, with the components that matched
   * (src/stacks/dispatch.ts).
   */
  async function writeDeliveries(group: Group, batch: DispatchBatch, kind: WebhookEventKind = 'new_issues'): Promise<number> {
    const payload = Buffer.from(JSON.stringify({ event: kind, issues: batch.issues }));
    const plain = await writeGroupDeliveries(prisma, { eventId: batch.eventId, kind, payload, filters: group.filters });
    const written = plain + (await stacks.write(group.key, batch, kind));
    if (written > 0) options.onDeliveries?.(written);
    return written;
  }

  /** Writes what the subscription yields until it ends; answers the number of rows written. */
  async function consume(group: Group, iterator: AsyncIterator<DispatchBatch>, kindOf = (_eventId: string): WebhookEventKind => 'new_issues'): Promise<number> {
    let written = 0;
    for (;;) {
      const step = await iterator.next();
      if (step.done) return written;
      written += await writeDeliveries(group, step.value, kindOf(step.value.eventId));
    }
  }

  /** Events still missing a row for one of the group's webhooks, oldest first. */
  async function eventsToReplay(group: Group, since: Date): Promise<PublishedEvent[]> {
    const events = await readEventsToReplay(prisma, group.filters, since);
    return events.filter((e) => !group.replayed.has(e.id));
  }

  /** Runs missed events through the same subscription, fed from the database. */
  async function replay(group: Group): Promise<void> {
    const started = Date.now();
    const since = Math.max(started - catchUpWindowMs, (group.lastReplayAt ?? 0) - replayOverlapMs);
    for (const [id, createdAt] of group.replayed) if (createdAt < since) group.replayed.delete(id);
    const events = await eventsToReplay(group, new Date(since));
    if (events.length === 0) {
      group.lastReplayAt = started;
      return;
    }
    // New and updated issues go through the subscription (served, matching the filters, REST shape);
    // withdrawn ones are no longer served, so a withdrawal names their ids to every webhook that asked.
    const kinds = new Map(events.map((e) => [e.id, e.kind]));
    const source: NewIssuesSource = {
      async *subscribe() {
        for (const e of events) if (e.kind !== 'issues_withdrawn') yield { eventId: e.id, issueIds: e.issueIds } satisfies NewIssuesEvent;
      },
    };
    let written = await consume(group, await issueStream(group.filters, source), (id) => kinds.get(id) ?? 'new_issues');
    for (const e of events) {
      if (e.kind === 'issues_withdrawn') written += await writeDeliveries(group, { eventId: e.id, issues: e.issueIds.map((id) => ({ id })) }, e.kind);
    }
    // Only a replay that went through moves the window on.
    group.lastReplayAt = started;
    for (const e of events) group.replayed.set(e.id, e.createdAt.getTime());
    if (written > 0) log.info('webhook events replayed', { filters: group.filters, events: events.length, deliveries: written });
  }

  async function startGroup(group: Group): Promise<void> {
    try {
      // Live first, then replay: an event published meanwhile is seen by one or both, never by neither.
      const iterator = await issueStream(group.filters, services.pubsub);
      group.iterator = iterator;
      group.loop = consume(group, iterator).then(
        () => {
          if (!group.stopped) restartLater(group, new Error('subscription ended'));
        },
        (err) => restartLater(group, err),
      );
      await replay(group);
    } catch (err) {
      restartLater(group, err);
    }
  }

  function restartLater(group: Group, err: unknown) {
    if (group.stopped || !running) return;
    log.error('webhook dispatch subscription failed; restarting it', { filters: group.filters, err });
    void stopGroup(group);
    setTimeout(() => {
      if (running) void refresh();
    }, restartDelayMs).unref();
  }

  async function stopGroup(group: Group): Promise<void> {
    group.stopped = true;
    if (groups.get(group.key) === group) groups.delete(group.key);
    await group.iterator?.return?.();
    await group.loop?.catch(() => {});
  }

  async function reconcile(): Promise<void> {
    const wanted = new Map((await readActiveFilters(prisma)).map((filters) => [JSON.stringify(filters), filters]));
    const starting: Promise<void>[] = [];
    for (const [key, filters] of wanted) {
      if (groups.has(key)) continue;
      const group: Group = { key, filters, stopped: false, replayed: new Map() };
      groups.set(key, group);
      starting.push(startGroup(group));
    }
    for (const group of [...groups.values()]) if (!wanted.has(group.key)) await stopGroup(group);
    await Promise.all(starting);
  }

  /** Re-reads the active webhooks' filters now; resolves once new groups are subscribed. */
  function refresh(): Promise<void> {
    if (!running) return Promise.resolve();
    refreshing = refreshing.then(reconcile).catch((err) => log.error('could not refresh webhook dispatch', { err }));
    return refreshing;
  }

  /** Replays for every live group, in the same queue as refreshes (rows already written are kept). */
  function sweep(): Promise<void> {
    if (!running) return Promise.resolve();
    const live = () => [...groups.values()].filter((g) => g.iterator && !g.stopped);
    refreshing = refreshing
      .then(async () => {
        for (const group of live()) await replay(group);
      })
      .catch((err) => log.error('could not replay webhook events', { err }));
    return refreshing;
  }

  return {
    /** Starts a subscription per filter and replays what a previous run may have missed. */
    async start() {
      if (running) return;
      running = true;
      await refresh();
      timers = [setInterval(() => void refresh(), refreshIntervalMs), setInterval(() => void sweep(), sweepIntervalMs)];
      for (const timer of timers) timer.unref();
    },
    refresh,
    /** Ends every subscription and waits for rows being written. */
    async stop() {
      running = false;
      for (const timer of timers) clearInterval(timer);
      await refreshing;
      await Promise.all([...groups.values()].map(stopGroup));
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
