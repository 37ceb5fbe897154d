// New issues cross instances through Redis: an advisory ingested on one instance reaches a GraphQL
// subscriber on another instance of the same deployment. Runs when TEST_REDIS_URL is set (CI
// sets it).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { adminHeaders, adminKey, loadAdvisory } from '../helpers/samples.js';
import { openSubscription } from '../helpers/sse.js';

const redisUrl = process.env.TEST_REDIS_URL || undefined;

describe.skipIf(!redisUrl)('pub/sub through Redis', () => {
  let db: TestDatabase;
  let ingesting: TestApp;
  let subscribing: TestApp;
  let redis: Redis;
  // One deployment's channel, apart from any other run sharing this Redis.
  const redisKeyPrefix = `secwire-test:${randomBytes(6).toString('hex')}:`;
  beforeAll(async () => {
    db = await createTestDatabase();
    ingesting = await createTestApp({ redisUrl, redisKeyPrefix, adminApiKey: adminKey }, db);
    subscribing = await createTestApp({ redisUrl, redisKeyPrefix }, db);
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
    const subscription = await openSubscription(subscribing, 'subscription { newIssues { eventId issues { id title cveId } } }');
    expect(subscription.response.status).toBe(200);
    try {
      // Ingest once the other instance's subscription has reached Redis.
      while ((await newIssuesSubscribers()) <= subscribersBefore) await new Promise((r) => setTimeout(r, 20));
      const ingest = await ingesting.fetch('/api/v1/admin/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminHeaders },
        body: JSON.stringify(loadAdvisory('GHSA-57fc-8q82-gfp3')),
      });
      expect(ingest.status).toBe(200);
      const message = await subscription.next('newIssues');
      const event = await db.prisma.issueEvent.findFirstOrThrow();
      expect(message.data.newIssues).toEqual({
        eventId: event.id,
        issues: [{ id: event.issueIds[0], title: 'langchain vulnerable to arbitrary code execution', cveId: 'CVE-2023-36188' }],
      });
    } finally {
      await subscription.close();
    }
  });

  async function newIssuesSubscribers(): Promise<number> {
    const [, count] = (await redis.pubsub('NUMSUB', `${redisKeyPrefix}newIssues`)) as [string, number];
    return Number(count);
  }
});
