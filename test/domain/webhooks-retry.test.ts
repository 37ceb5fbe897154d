// The retry schedule: exponential, jittered, about three days from the first attempt to the last.
import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, nominalDelay, retryDelay } from '../../src/webhooks/retry.js';

const hour = 3600_000;

describe('retry schedule', () => {
  it('doubles from one minute up to twelve hours', () => {
    const delays = Array.from({ length: defaultRetryPolicy.maxAttempts - 1 }, (_, i) => nominalDelay(defaultRetryPolicy, i + 1));
    expect(delays.slice(0, 4)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(Math.max(...delays)).toBe(12 * hour);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
  });

  it('spreads its attempts over about three days', () => {
    const total = Array.from({ length: defaultRetryPolicy.maxAttempts - 1 }, (_, i) => nominalDelay(defaultRetryPolicy, i + 1)).reduce((a, b) => a + b, 0);
    expect(total / (24 * hour)).toBeGreaterThan(2.5);
    expect(total / (24 * hour)).toBeLessThan(3.5);
  });

  it('jitters each delay within ±25 %', () => {
    const nominal = nominalDelay(defaultRetryPolicy, 5);
    expect(retryDelay(defaultRetryPolicy, 5, () => 0)).toBe(Math.round(nominal * 0.75));
    expect(retryDelay(defaultRetryPolicy, 5, () => 1)).toBe(Math.round(nominal * 1.25));
    const samples = new Set(Array.from({ length: 50 }, () => retryDelay(defaultRetryPolicy, 5)));
    expect(samples.size).toBeGreaterThan(40);
  });
});
