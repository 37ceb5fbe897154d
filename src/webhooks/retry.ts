// When a failed delivery is tried again: exponential backoff with proportional jitter, so a
// receiver that comes back is not hit by every queued delivery in the same second.
export interface RetryPolicy {
  /** Delay after the first failed attempt. */
  baseDelayMs: number;
  /** Growth per attempt. */
  factor: number;
  /** Longest single delay. */
  maxDelayMs: number;
  /** Attempts in total (the first one included); after the last failure the delivery is dead. */
  maxAttempts: number;
  /** Spread: each delay is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
}

/**
 * 1 min, 2, 4, ... doubling up to 12 h: 16 attempts spread over about three days
 * (nominally 77 hours from the first attempt to the last).
 */
export const defaultRetryPolicy: RetryPolicy = {
  baseDelayMs: 60_000,
  factor: 2,
  maxDelayMs: 12 * 3600_000,
  maxAttempts: 16,
  jitter: 0.25,
};

/** Nominal delay (no jitter) after the given number of attempts made (1 = after the first). */
export function nominalDelay(policy: RetryPolicy, attemptsMade: number): number {
  return Math.min(policy.baseDelayMs * policy.factor ** (attemptsMade - 1), policy.maxDelayMs);
}

export function retryDelay(policy: RetryPolicy, attemptsMade: number, random: () => number = Math.random): number {
  const spread = 1 - policy.jitter + 2 * policy.jitter * random();
  return Math.round(nominalDelay(policy, attemptsMade) * spread);
}
