/**
 * When a failed notice is tried again, or given up (pure). Backoff doubles
 * from a base to a cap with jitter, so many notices failing together do not
 * come back together; a receiver's `Retry-After` is honoured (up to the cap);
 * a notice is given up once the next try would fall past the give-up window,
 * counted from its first attempt.
 */
import type { AttemptRecord } from '../store/index.js';
import type { SendResult } from './channel.js';

export interface RetryTunables {
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly giveUpAfterMs: number;
}

/** What an attempt comes to is exactly what the outbox row records of it. */
export type AttemptVerdict = AttemptRecord;

export interface AttemptFacts {
  readonly result: SendResult;
  /** Attempts made so far, this one included. */
  readonly attempts: number;
  readonly firstAttemptMs: number;
  readonly nowMs: number;
  /** In [0, 1): the jitter's draw. */
  readonly random: number;
}

export function backoffMs(attempts: number, tunables: RetryTunables, random: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  const full = Math.min(tunables.retryMaxMs, tunables.retryBaseMs * 2 ** exponent);
  // "Equal jitter": at least half the step, so a retry never comes back at once.
  return Math.round(full / 2 + (full / 2) * random);
}

export function judgeAttempt(facts: AttemptFacts, tunables: RetryTunables): AttemptVerdict {
  const { result } = facts;
  if (result.ok) return { outcome: 'delivered', status: result.status };
  if (!result.retryable) {
    return {
      outcome: 'gave_up',
      reason: 'failed',
      status: result.status,
      error: result.error,
      code: result.code,
    };
  }
  let delay = backoffMs(facts.attempts, tunables, facts.random);
  if (result.retryAfterMs !== undefined) {
    delay = Math.max(delay, Math.min(result.retryAfterMs, tunables.retryMaxMs));
  }
  const next = facts.nowMs + delay;
  if (next > facts.firstAttemptMs + tunables.giveUpAfterMs) {
    return {
      outcome: 'gave_up',
      reason: 'failed',
      status: result.status,
      error: `${result.error} (given up after ${facts.attempts} attempts)`,
      code: result.code,
    };
  }
  return {
    outcome: 'retry',
    status: result.status,
    error: result.error,
    code: result.code,
    nextAttemptMs: next,
  };
}
