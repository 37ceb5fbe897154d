// A worker process killed with SIGKILL in the middle of delivering, then started again, ends with
// every delivery received: nothing lost, and any duplicate carries the same webhook-id.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { openDatabase, type Database, type DatabaseTarget } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { createLogger } from '../../src/log.js';
import { createIssuePubSub } from '../../src/pubsub.js';
import { createWebhookDispatcher } from '../../src/schema/issue-stream.js';
import { newSecret } from '../../src/webhooks/signing.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';
import { createReceiver, testCertificate, type Receiver } from '../helpers/https-receiver.js';
import { makeIssue } from '../helpers/issues.js';

const WEBHOOKS = 5;
const EVENTS = 20;
const LEASE_MS = 8_000;

let receiver: Receiver;
let target: DatabaseTarget;
let pgDatabase: TestDatabase | undefined;
let dataDir: string | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The worker runs in another process, so the database must be one two processes can reach in turn.
  if (testDatabaseUrl) {
    pgDatabase = await createTestDatabase();
    target = { kind: 'postgres', url: pgDatabase.url! };
  } else {
    dataDir = await mkdtemp(join(tmpdir(), 'secwire-crash-'));
    target = { kind: 'pglite', dataDir };
  }
  // Slow answers, so the kill lands while deliveries are in flight.
  receiver = await createReceiver(() => ({ status: 200, delayMs: 60 }));
});

afterAll(async () => {
  // Never leave a worker behind, whatever happened.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await pgDatabase?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Webhooks, issues and events, turned into outbox rows by the real dispatcher (its replay). */
async function seed(db: Database): Promise<string[]> {
  for (let i = 0; i < WEBHOOKS; i++) {
    await db.prisma.webhook.create({ data: { url: receiver.url(`/crash-${i}`), secret: newSecret(), ownerKeyHash: 'test' } });
  }
  for (let e = 0; e < EVENTS; e++) {
    const issues = await db.prisma.issue.createManyAndReturn({
      data: [makeIssue({ title: `crash ${e}a` }), makeIssue({ title: `crash ${e}b` })],
      select: { id: true },
    });
    await db.prisma.issueEvent.create({ data: { issueIds: issues.map((i) => i.id) } });
  }
  const { pubsub } = createIssuePubSub();
  const dispatcher = createWebhookDispatcher({ config: testConfig(), db, log: createLogger('silent'), pubsub });
  await dispatcher.start();
  await dispatcher.stop();
  return (await db.prisma.webhookDelivery.findMany({ select: { id: true } })).map((d) => d.id);
}

function startWorker(): ChildProcess {
  const options = { database: target, ca: testCertificate().cert, leaseMs: LEASE_MS, timeoutMs: 3000, concurrency: 8 };
  // Node itself with tsx's loader (not the tsx CLI, which runs the script in a child process that a
  // SIGKILL to the CLI would leave running).
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'test/fixtures/delivery-worker.ts', JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

it('loses nothing when the worker is SIGKILLed mid-delivery and restarted', { timeout: 180_000 }, async () => {
  const db = await openDatabase(target);
  await migrate(db.adapterFactory);
  const deliveryIds = await seed(db);
  expect(deliveryIds).toHaveLength(WEBHOOKS * EVENTS);
  await db.close(); // PGlite: one process at a time

  const first = startWorker();
  const firstExit = exited(first);
  await receiver.waitFor((r) => r.length >= 30, 90_000);
  first.kill('SIGKILL');
  expect(await firstExit).toBeNull(); // killed, not finished
  const receivedAtKill = receiver.requests.length;
  expect(receivedAtKill).toBeLessThan(deliveryIds.length);
  // The kill landed mid-delivery: rows are left claimed, which only their lease's expiry frees.
  const afterKill = await openDatabase(target);
  try {
    expect(await afterKill.prisma.webhookDelivery.count({ where: { status: 'delivering' } })).toBeGreaterThan(0);
  } finally {
    await afterKill.close();
  }

  const second = startWorker();
  expect(await exited(second)).toBe(0);

  const received = receiver.requests.map((r) => String(r.headers['webhook-id']));
  const distinct = new Set(received);
  const lost = deliveryIds.filter((id) => !distinct.has(id));
  expect(lost).toEqual([]);
  expect([...distinct].every((id) => deliveryIds.includes(id))).toBe(true);
  // A duplicate is the same message again: same webhook-id, same issues.
  const bodies = new Map<string, string>();
  for (const req of receiver.requests) {
    const id = String(req.headers['webhook-id']);
    const issues = JSON.stringify(req.json.issues);
    expect(bodies.get(id) ?? issues).toBe(issues);
    bodies.set(id, issues);
  }
  const duplicates = received.length - distinct.size;
  // At most the deliveries that were in flight when the worker died go out twice.
  expect(duplicates).toBeLessThanOrEqual(8);
  console.log(`crash test: ${deliveryIds.length} deliveries, ${receivedAtKill} received before SIGKILL, lost 0, duplicates ${duplicates}`);

  const check = await openDatabase(target);
  try {
    expect(await check.prisma.webhookDelivery.count({ where: { status: 'succeeded' } })).toBe(deliveryIds.length);
  } finally {
    await check.close();
  }
});
