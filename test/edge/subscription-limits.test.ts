// GraphQL subscriptions are bounded: per client and in total, an idle one ends by itself, and a
// published batch costs one query per distinct filter, however many subscribers share it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { adminKey } from '../helpers/samples.js';
import { openSubscription } from '../helpers/sse.js';
import { bearer, publishIssues, webhookKey } from '../helpers/webhooks.js';

const query = (filter = '') => `subscription { newIssues${filter} { eventId issues { id title } } }`;

let db: TestDatabase;
let issueQueries = 0;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** The same database, counting the statements over "Issue" the app reads (they still run). */
function countingDatabase(): TestDatabase {
  const read: TestDatabase['read'] = (query, settings) => {
    if (query.text.includes('FROM "Issue"')) issueQueries++;
    return db.read(query, settings);
  };
  return { ...db, read };
}

/** Opens a subscription over SSE; with `key`, as the client that bearer key identifies. */
function subscribe(t: TestApp, text: string, key?: string) {
  return openSubscription({ fetch: (path, init) => t.fetch(path, { ...init, headers: { ...init?.headers, ...(key ? bearer(key) : {}) } }) }, text);
}

/** The first message of a stream: a refusal arrives as a result with errors. */
async function firstMessage(subscription: Awaited<ReturnType<typeof subscribe>>) {
  return subscription.next('"');
}

describe('caps', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ subscriptionsPerClient: 2, subscriptionsTotal: 3, webhookApiKey: webhookKey, adminApiKey: adminKey }, db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a client beyond its own limit, and every client beyond the total, until one closes', async () => {
    const a1 = await subscribe(t, query(), webhookKey);
    const a2 = await subscribe(t, query(), webhookKey);
    const a3 = await subscribe(t, query(), webhookKey);
    const refusedA = await firstMessage(a3);
    expect(refusedA.errors[0]).toMatchObject({
      message: 'At most 2 subscriptions may be open per client; close one first',
      extensions: { code: 'RATE_LIMITED' },
    });
    await a3.close();
    // Another client still has room, up to the total.
    const b1 = await subscribe(t, query(), adminKey);
    const b2 = await subscribe(t, query(), adminKey);
    expect((await firstMessage(b2)).errors[0].message).toBe('The server holds its maximum of 3 open subscriptions; try again later');
    await b2.close();
    // A closed subscription gives its slot back.
    await a1.close();
    const b3 = await subscribe(t, query(), adminKey);
    const { eventId } = await publishIssues(t, [{ title: 'after a slot was freed' }]);
    expect((await firstMessage(b3)).data.newIssues.eventId).toBe(eventId);
    for (const s of [a2, b1, b3]) await s.close();
  });
});

describe('idle subscriptions', () => {
  it('end by themselves after the idle time without a message', async () => {
    const t = await createTestApp({ subscriptionIdleMs: 200 }, db);
    try {
      const subscription = await subscribe(t, query());
      // The server completes the stream without the client closing it.
      await expect(subscription.next('newIssues')).rejects.toThrow(/stream ended/);
    } finally {
      await t.close();
    }
  });
});

describe('shutdown', () => {
  it('ends every open subscription, completed, as soon as the server starts stopping', async () => {
    const stopping = new AbortController();
    const t = await createTestApp({}, db, { stopping: stopping.signal });
    try {
      const subscription = await subscribe(t, query());
      const { eventId } = await publishIssues(t, [{ title: 'before the stop' }]);
      expect((await subscription.next('newIssues')).data.newIssues.eventId).toBe(eventId);
      // Ended by the server (a drain would otherwise hold it until its deadline and then cut it).
      stopping.abort();
      await expect(subscription.next('newIssues')).rejects.toThrow(/stream ended/);
      // One opened while stopping ends at once.
      const late = await subscribe(t, query());
      await expect(late.next('newIssues')).rejects.toThrow(/stream ended/);
    } finally {
      await t.close();
    }
  });
});

describe('fan-out', () => {
  it('runs one batch through one query per distinct filter, not per subscriber', async () => {
    const t = await createTestApp({ subscriptionsPerClient: 20 }, countingDatabase());
    const critical = '(filter: {severity: critical})';
    const subscriptions = await Promise.all([
      ...Array.from({ length: 6 }, () => subscribe(t, query(critical))),
      ...Array.from({ length: 3 }, () => subscribe(t, query())),
    ]);
    try {
      // Each stream listens only once it is read: publish until every one has had a batch, then a
      // fence batch (messages arrive in order, so no earlier batch is still being matched).
      const first = subscriptions.map((s) => s.next('newIssues'));
      let all = false;
      void Promise.all(first).then(() => (all = true));
      while (!all) {
        await publishIssues(t, [{ title: 'warm-up', severity: 'critical' }]);
        await Promise.race([Promise.all(first), new Promise((r) => setTimeout(r, 50))]);
      }
      const fence = await publishIssues(t, [{ title: 'fence', severity: 'critical' }]);
      await Promise.all(
        subscriptions.map(async (s) => {
          while ((await s.next('newIssues')).data.newIssues.eventId !== fence.eventId);
        }),
      );

      issueQueries = 0;
      const batch = await publishIssues(t, [
        { title: 'counted', severity: 'critical' },
        { title: 'counted low', severity: 'low' },
      ]);
      const received = await Promise.all(subscriptions.map((s) => s.next('newIssues')));
      expect(received.map((m) => m.data.newIssues.eventId)).toEqual(subscriptions.map(() => batch.eventId));
      expect(received.map((m) => m.data.newIssues.issues.length)).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 2]);
      // Two filters: for each, one query to match the batch and one to load its issues.
      expect(issueQueries).toBe(4);
    } finally {
      for (const s of subscriptions) await s.close();
      await t.close();
    }
  });
});
