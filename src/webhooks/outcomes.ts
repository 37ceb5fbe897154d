// Records delivery attempts. Outcomes that arrive together are written together: one transaction
// of two statements (attempt rows; delivery rows with their webhooks' health) per batch instead of
// four or five statements per attempt, which is what keeps fan-out to many webhooks fast on the
// embedded database, where every statement runs on one thread.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';
import { type OutcomeRow, writeOutcomes } from './outbox.js';
import { retryDelay, type RetryPolicy } from './retry.js';

export interface Outcome {
  deliveryId: string;
  webhookId: string;
  kind: string;
  /** Attempts made so far, this one included. */
  attempts: number;
  /** The claim this attempt ran under; a later claim of the same row wins. */
  claim: Date;
  attemptedAt: Date;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

export interface OutcomeRules {
  retry: RetryPolicy;
  /** Dead deliveries in a row (no success between) that deactivate the webhook. */
  deadLimit: number;
}

/** 2xx succeeds; 410 is final and deactivates; pings never retry; the rest retries until maxAttempts. */
function decide(outcome: Outcome, rules: OutcomeRules, now: Date) {
  const { statusCode } = outcome;
  const ok = statusCode !== undefined && statusCode >= 200 && statusCode < 300;
  const gone = statusCode === 410;
  const error = ok ? null : (outcome.error ?? describeStatus(statusCode!));
  const dead = !ok && (gone || outcome.kind === 'ping' || outcome.attempts >= rules.retry.maxAttempts);
  const nextAttemptAt = ok || dead ? null : new Date(now.getTime() + retryDelay(rules.retry, outcome.attempts));
  return { outcome, ok, gone, dead, error, nextAttemptAt };
}

type Decided = ReturnType<typeof decide>;

function describeStatus(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode}: redirects are not followed`;
  return `HTTP ${statusCode}`;
}

/** The batch as the outbox writes it, in the order the outcomes arrived. */
function rowsOf(batch: Decided[]): OutcomeRow[] {
  const now = new Date();
  return batch.map((d, seq) => ({
    id: d.outcome.deliveryId,
    token: d.outcome.claim.toISOString(),
    status: d.ok ? 'succeeded' : d.dead ? 'dead' : 'failed',
    completed_at: d.ok || d.dead ? now.toISOString() : null,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    status_code: d.outcome.statusCode ?? null,
    error: d.error,
    attempted_at: d.outcome.attemptedAt.toISOString(),
    duration_ms: d.outcome.durationMs,
    webhook_id: d.outcome.webhookId,
    seq,
    ok: d.ok,
    gone: d.gone,
    // Pings are one-shot tests: they never count against the webhook's health (a 410 still does).
    failure: !d.ok && !d.gone && d.outcome.kind !== 'ping',
    dead: d.dead,
  }));
}

export function createOutcomeRecorder(prisma: PrismaClient, log: Logger, rules: OutcomeRules, batchWindowMs = 20) {
  let pending: { decided: Decided; done: () => void }[] = [];
  let flushing = false;
  let timer: NodeJS.Timeout | undefined;

  /** Writes a batch; if it fails, each outcome alone, so one cannot cost the others theirs. */
  async function writeOrSplit(batch: Decided[]): Promise<void> {
    try {
      await writeOutcomes(prisma, rowsOf(batch), rules.deadLimit);
    } catch (err) {
      // What still fails stays claimed until its lease ends, then goes out again with the same webhook-id.
      if (batch.length === 1) log.error('could not record a webhook delivery attempt', { deliveryId: batch[0]!.outcome.deliveryId, err });
      else for (const one of batch) await writeOrSplit([one]);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    while (pending.length) {
      const batch = pending;
      pending = [];
      await writeOrSplit(batch.map((p) => p.decided));
      for (const p of batch) p.done();
    }
    flushing = false;
  }

  return {
    /**
     * Resolves once the outcome is written (or, if writing failed, logged). `last`: no other
     * delivery is waiting for its answer, so nothing more can join the batch and it is written now.
     */
    record(outcome: Outcome, last = false): Promise<void> {
      const decided = decide(outcome, rules, new Date());
      if (!decided.ok)
        log.debug('webhook delivery attempt failed', {
          deliveryId: outcome.deliveryId,
          statusCode: outcome.statusCode,
          error: decided.error,
          dead: decided.dead,
        });
      return new Promise<void>((done) => {
        pending.push({ decided, done });
        // Outcomes arriving within a few milliseconds, or while a batch is being written, are
        // written together.
        if (flushing) return;
        if (last) {
          clearTimeout(timer);
          timer = undefined;
          void flush();
        } else if (!timer) {
          timer = setTimeout(() => {
            timer = undefined;
            if (!flushing) void flush();
          }, batchWindowMs);
        }
      });
    },
  };
}
