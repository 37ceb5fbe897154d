// New issues cross instances through Redis: an advisory ingested on one instance reaches a GraphQL
// subscriber on another instance of the same deployment. Runs when TEST_REDIS_URL is set (CI
// sets it).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { adminHeaders, adminKey, loadAdvisory } from './helpers/samples.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;

describe.skipIf(!redisUrl)('pub/sub through Redis', () => {
  let db: TestDatabase;
  let ingesting: TestApp;
  let subscribing: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    db = await createTestDatabase();
    ingesting = await createTestApp({ redisUrl, adminApiKey: adminKey }, db);
    subscribing = await createTestApp({ redisUrl }, db);
    redis = new Redis(redisUrl!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await ingesting?.close();
    await subscribing?.close();
    await db?.close();
  });

  it('streams an issue ingested on one instance to a subscriber on another', async () => {
    const subscribersBefore = await newIssuesSubscribers();
    const controller = new AbortController();
    const res = await subscribing.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { newIssues { eventId issues { id title cveId } } }' }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const messages = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended without a newIssues message');
        buffer += decoder.decode(value, { stream: true });
        const data = buffer.split('\n').find((line) => line.startsWith('data: ') && line.includes('newIssues'));
        if (data) return JSON.parse(data.slice(6));
      }
    })();
    try {
      // Ingest once the other instance's subscription has reached Redis.
      while ((await newIssuesSubscribers()) <= subscribersBefore) await new Promise((r) => setTimeout(r, 20));
      const ingest = await ingesting.fetch('/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminHeaders },
        body: JSON.stringify(loadAdvisory('GHSA-57fc-8q82-gfp3')),
      });
      expect(ingest.status).toBe(200);
      const message = await messages;
      const event = await db.prisma.issueEvent.findFirstOrThrow();
      expect(message.data.newIssues).toEqual({
        eventId: event.id,
        issues: [{ id: event.issueIds[0], title: 'langchain vulnerable to arbitrary code execution', cveId: 'CVE-2023-36188' }],
      });
    } finally {
      controller.abort();
      await reader.cancel().catch(() => {});
    }
  });

  async function newIssuesSubscribers(): Promise<number> {
    const [, count] = (await redis.pubsub('NUMSUB', 'newIssues')) as [string, number];
    return Number(count);
  }
});
