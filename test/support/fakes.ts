/** Deterministic time and identities for tests. */
import { monotonicTimestamps, type Clock } from '../../src/support/clock.js';
import type { IdSource } from '../../src/support/ids.js';
import type { RepeatingTimers } from '../../src/support/timers.js';

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

/**
 * Timers driven by a fake clock: callbacks run only when the test advances
 * time, in deadline order (ties in scheduling order).
 */
export class ClockTimers implements RepeatingTimers {
  private sequence = 0;
  private readonly scheduled: { at: number; seq: number; callback: () => void }[] = [];

  constructor(private readonly clock: FakeClock) {}

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const entry = { at: this.clock.nowMs() + ms, seq: this.sequence++, callback };
    this.scheduled.push(entry);
    return {
      cancel: () => {
        const index = this.scheduled.indexOf(entry);
        if (index >= 0) this.scheduled.splice(index, 1);
      },
    };
  }

  /** Every `ms` from now, each time armed again as it runs. */
  every(ms: number, callback: () => void): { cancel(): void } {
    let armed: { cancel(): void } | undefined;
    let cancelled = false;
    const arm = () => {
      armed = this.setTimeout(() => {
        if (cancelled) return;
        arm();
        callback();
      }, ms);
    };
    arm();
    return {
      cancel: () => {
        cancelled = true;
        armed?.cancel();
      },
    };
  }

  advance(ms: number): void {
    const target = this.clock.nowMs() + ms;
    for (;;) {
      const due = this.scheduled
        .filter((entry) => entry.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.scheduled.splice(this.scheduled.indexOf(due), 1);
      this.clock.advance(due.at - this.clock.nowMs());
      due.callback();
    }
    this.clock.advance(target - this.clock.nowMs());
  }

  get active(): number {
    return this.scheduled.length;
  }
}
