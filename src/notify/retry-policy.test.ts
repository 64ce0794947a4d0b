/** Backoff, Retry-After and giving up, as pure arithmetic. */
import { describe, expect, it } from 'vitest';
import { backoffMs, judgeAttempt } from './retry-policy.js';

const TUNABLES = { retryBaseMs: 5_000, retryMaxMs: 3_600_000, giveUpAfterMs: 86_400_000 };
const FAILED = {
  ok: false as const,
  status: 503,
  error: 'HTTP 503',
  code: 'http_status' as const,
  retryable: true,
};

describe('the retry policy', () => {
  it('doubles from the base to the cap, jittered within the upper half of each step', () => {
    expect(backoffMs(1, TUNABLES, 0)).toBe(2_500);
    expect(backoffMs(1, TUNABLES, 0.999_999)).toBeCloseTo(5_000, -1);
    expect(backoffMs(2, TUNABLES, 0)).toBe(5_000);
    expect(backoffMs(4, TUNABLES, 0)).toBe(20_000);
    expect(backoffMs(40, TUNABLES, 0)).toBe(1_800_000);
    expect(backoffMs(40, TUNABLES, 0.999_999)).toBeLessThanOrEqual(3_600_000);
  });

  it('retries a retryable failure, honouring Retry-After up to the cap', () => {
    const facts = { attempts: 1, firstAttemptMs: 0, nowMs: 1_000, random: 0 };
    expect(judgeAttempt({ ...facts, result: FAILED }, TUNABLES)).toEqual({
      outcome: 'retry',
      status: 503,
      error: 'HTTP 503',
      code: 'http_status',
      nextAttemptMs: 3_500,
    });
    expect(
      judgeAttempt({ ...facts, result: { ...FAILED, retryAfterMs: 60_000 } }, TUNABLES),
    ).toMatchObject({ outcome: 'retry', nextAttemptMs: 61_000 });
    expect(
      judgeAttempt({ ...facts, result: { ...FAILED, retryAfterMs: 99_999_999 } }, TUNABLES),
    ).toMatchObject({ outcome: 'retry', nextAttemptMs: 3_601_000 });
  });

  it('gives up a final refusal at once, and any failure past the window', () => {
    const facts = { attempts: 1, firstAttemptMs: 0, nowMs: 0, random: 0 };
    expect(
      judgeAttempt({ ...facts, result: { ...FAILED, status: 410, retryable: false } }, TUNABLES),
    ).toMatchObject({ outcome: 'gave_up', status: 410 });
    expect(
      judgeAttempt({ ...facts, attempts: 20, nowMs: 86_000_000, result: FAILED }, TUNABLES),
    ).toMatchObject({
      outcome: 'gave_up',
      error: 'HTTP 503 (given up after 20 attempts)',
      // The code stays the failure's own: the page words why, the state says it was given up.
      code: 'http_status',
    });
  });

  it('records a success as delivered', () => {
    expect(
      judgeAttempt(
        { result: { ok: true, status: 204 }, attempts: 4, firstAttemptMs: 0, nowMs: 9, random: 0 },
        TUNABLES,
      ),
    ).toEqual({ outcome: 'delivered', status: 204 });
  });
});
