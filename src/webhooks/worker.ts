// The delivery worker: claims due outbox rows with FOR UPDATE SKIP LOCKED (so any number of
// workers, in any number of processes, never send the same row at once), signs and POSTs them,
// records every attempt and schedules retries. A claim is a lease: a worker that dies mid-delivery
// leaves its rows to be claimed again once the lease runs out, and they go out with the same
// webhook-id, so a receiver can drop the duplicate.
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { type ClaimedRow, claimDeliveries } from './outbox.js';
import { createOutcomeRecorder } from './outcomes.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import { createSender, type SenderOptions, type SendResult } from './sender.js';
import { signatureHeaders } from './signing.js';

export interface WorkerOptions extends Partial<Omit<SenderOptions, 'allowPrivateTargets'>> {
  allowPrivateTargets: boolean;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /**
   * Fair shares, counted over every worker of the deployment (rows being delivered): deliveries in
   * flight at once to one webhook, for one owner key, and to one host (host:port). A receiver that
   * hangs, or one key with many webhooks at it, holds at most its share and never everyone's slots.
   */
  perWebhook?: number;
  perKey?: number;
  perHost?: number;
  /** How often an idle worker looks for due rows (wake() cuts this short). */
  pollIntervalMs?: number;
  /** How long a claim holds a row; must exceed timeoutMs, or a slow attempt could be sent twice. */
  leaseMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Dead deliveries in a row (no success between) that deactivate the webhook. */
  deadDeliveriesToDeactivate?: number;
}

export function createDeliveryWorker({ db, log }: { db: Database; log: Logger }, options: WorkerOptions) {
  const prisma = db.prisma;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const leaseMs = options.leaseMs ?? timeoutMs + 15_000;
  const concurrency = options.concurrency ?? 16;
  const claimBatch = Math.max(1, Math.floor(concurrency / 4));
  const perWebhook = options.perWebhook ?? 2;
  // Half the slots at most for one key or one host: the other half stays free for everyone else
  // even while a key's receivers all hang until the time limit.
  const perKey = options.perKey ?? Math.max(1, Math.ceil(concurrency / 2));
  const perHost = options.perHost ?? Math.max(1, Math.ceil(concurrency / 2));
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const retry: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const deadLimit = options.deadDeliveriesToDeactivate ?? 3;
  const sender = createSender({ maxSocketsPerHost: perHost, ...options, timeoutMs });
  const recorder = createOutcomeRecorder(prisma, log, { retry, deadLimit });

  const inFlight = new Set<Promise<void>>();
  /** Deliveries still waiting for the receiver's answer (the rest of inFlight are being recorded). */
  let awaitingAnswer = 0;
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let wakeRequested = false;

  /** The exact bytes sent: the stored message plus the time of this attempt. */
  function bodyFor(row: ClaimedRow, now: Date): Buffer {
    const message = JSON.parse(Buffer.from(row.payload).toString('utf8')) as Record<string, unknown>;
    return Buffer.from(JSON.stringify({ ...message, deliveredAt: now.toISOString() }));
  }

  /** `claimEnds`: when the claim runs out, on this process's monotonic clock (the database's may differ). */
  async function deliver(row: ClaimedRow, claimEnds: number): Promise<void> {
    const attemptedAt = new Date();
    // A claim that is nearly spent (the database was slow to answer) is not used: another claim
    // may take the row before this attempt could be recorded, and the receiver would get it twice.
    if (claimEnds - performance.now() < timeoutMs) {
      log.warn('webhook delivery claim expired before sending; leaving it to be claimed again', { deliveryId: row.id });
      return;
    }
    let result: SendResult;
    awaitingAnswer++;
    try {
      const body = bodyFor(row, attemptedAt);
      result = await sender.send(row.url, signatureHeaders(row, row.id, attemptedAt, body), body);
    } catch (err) {
      log.error('webhook delivery failed unexpectedly', { deliveryId: row.id, err });
      result = { error: 'internal error', durationMs: 0 };
    } finally {
      awaitingAnswer--;
    }
    // Once every delivery in flight has its answer, nothing else can join the outcome batch, and
    // the slots (and the host's share, counted in the database) stay taken until it is written.
    await recorder.record(
      {
        deliveryId: row.id,
        webhookId: row.webhookId,
        kind: row.kind,
        attempts: row.attempts,
        claim: row.lockedUntil,
        attemptedAt,
        ...result,
      },
      awaitingAnswer === 0,
    );
  }

  function track(promise: Promise<void>) {
    const tracked = promise.finally(() => {
      inFlight.delete(tracked);
      wake();
    });
    inFlight.add(tracked);
  }

  async function claimAndStart(): Promise<number> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return 0;
    let rows: ClaimedRow[];
    // The lease starts no earlier than the claim statement is sent.
    const claimEnds = performance.now() + leaseMs;
    try {
      rows = await claimDeliveries(prisma, { limit: free, perWebhook, perKey, perHost, leaseMs });
    } catch (err) {
      log.error('could not claim webhook deliveries', { err });
      return 0;
    }
    for (const row of rows) track(deliver(row, claimEnds));
    return rows.length;
  }

  async function run(): Promise<void> {
    while (running) {
      wakeRequested = false;
      const free = concurrency - inFlight.size;
      // Claims go in batches: while deliveries are in flight, wait for a quarter of the slots to
      // free, so one claim statement serves several deliveries (the embedded database runs one
      // statement at a time).
      const claiming = free > 0 && (free >= claimBatch || inFlight.size === 0);
      const claimed = claiming ? await claimAndStart() : 0;
      if (!running) break;
      if (wakeRequested) continue;
      // Waiting for slots (a full claim, or too few free): a finishing delivery wakes the loop.
      // Otherwise sleep until woken or the poll interval passes.
      const waitingForSlots = !claiming || (claimed > 0 && claimed === free);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, waitingForSlots ? 60_000 : pollIntervalMs);
        function finish() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = finish;
      });
    }
  }

  /** Look for due rows now (the dispatcher calls this after writing deliveries). */
  function wake() {
    wakeRequested = true;
    wakeUp?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    /** Stops claiming, waits for in-flight deliveries to finish and be recorded. */
    async stop() {
      running = false;
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
      sender.close();
    },
    wake,
    /** Claims and sends whatever is due (up to the concurrency), resolving when all are recorded. */
    async runOnce() {
      const claimed = await claimAndStart();
      await Promise.allSettled([...inFlight]);
      return claimed;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
