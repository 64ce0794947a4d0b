/** Deterministic time and identities for tests. */
import { monotonicTimestamps, type Clock } from '../../src/support/clock.js';
import type { IdSource } from '../../src/support/ids.js';

export interface FakeClock extends Clock {
  /** Moves time forward. */
  advance(ms: number): void;
}

export function fakeClock(startMs = Date.parse('2026-01-01T00:00:00Z')): FakeClock {
  let nowMs = startMs;
  const timestamp = monotonicTimestamps(() => BigInt(nowMs) * 1_000_000n);
  return {
    nowMs: () => nowMs,
    timestamp,
    advance(ms) {
      nowMs += ms;
    },
  };
}

/** `prefix-0001`, `prefix-0002`, …: sortable, so order-by-id tests read plainly. */
export function sequentialIds(prefix = 'id'): IdSource {
  let counter = 0;
  return { next: () => `${prefix}-${String(++counter).padStart(4, '0')}` };
}
