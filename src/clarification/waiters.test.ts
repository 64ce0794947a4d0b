import { describe, expect, it } from 'vitest';
import type { Timers } from '../support/timers.js';
import type { ClarificationResponse } from './outcome.js';
import { LiveWaiters, type WaitOutcome } from './waiters.js';

/** Timers that only fire when the test advances them; callbacks run in due order. */
class ManualTimers implements Timers {
  private nowMs = 0;
  private sequence = 0;
  private readonly scheduled: { at: number; seq: number; callback: () => void }[] = [];

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const entry = { at: this.nowMs + ms, seq: this.sequence++, callback };
    this.scheduled.push(entry);
    return {
      cancel: () => {
        const index = this.scheduled.indexOf(entry);
        if (index >= 0) this.scheduled.splice(index, 1);
      },
    };
  }

  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      const due = this.scheduled
        .filter((entry) => entry.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.scheduled.splice(this.scheduled.indexOf(due), 1);
      this.nowMs = due.at;
      due.callback();
    }
    this.nowMs = target;
  }

  /** Timers scheduled and neither fired nor cancelled. */
  get active(): number {
    return this.scheduled.length;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued promise reaction run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Tracks a wait's outcome without awaiting it, so tests can assert "not yet". */
function track(promise: Promise<WaitOutcome>): { outcome: WaitOutcome | undefined } {
  const state: { outcome: WaitOutcome | undefined } = { outcome: undefined };
  void promise.then((outcome) => {
    state.outcome = outcome;
  });
  return state;
}

function response(pendingId = 'p1'): ClarificationResponse {
  return {
    pending_id: pendingId,
    answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }],
    rejected: false,
    reject_reason: '',
    responded_at: '2026-01-01T00:00:00.000000000Z',
    responded_by: { user_id: 'u1', name: 'Ada', surface: 'web' },
  };
}

const HOUR_MS = 60 * 60 * 1000;
const confirmOk = () => Promise.resolve();

function setup() {
  const timers = new ManualTimers();
  return { timers, waiters: new LiveWaiters(timers) };
}

describe('LiveWaiters.deliver', () => {
  it('hands the response to the waiter and clears the entry', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    expect(waiters.has('p1')).toBe(true);
    expect(timers.active).toBe(1);

    const answer = response();
    await expect(waiters.deliver('p1', answer, confirmOk)).resolves.toEqual({ kind: 'delivered' });
    await expect(wait).resolves.toEqual({ kind: 'answered', response: answer });
    expect(waiters.has('p1')).toBe(false);
    expect(waiters.pendingIdsOf('s1')).toEqual([]);
    expect(timers.active).toBe(0);
  });

  it('runs confirm to completion before releasing any waiter', async () => {
    const { waiters } = setup();
    const events: string[] = [];
    const gate = deferred();
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }).then(() => events.push('waiter 1'));
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }).then(() => events.push('waiter 2'));

    const delivery = waiters.deliver('p1', response(), async () => {
      events.push('confirm started');
      await gate.promise;
      events.push('confirm finished');
    });
    await flush();
    expect(events).toEqual(['confirm started']);

    gate.resolve();
    await delivery;
    await flush();
    expect(events).toEqual(['confirm started', 'confirm finished', 'waiter 1', 'waiter 2']);
  });

  it('calls confirm once however many waiters there are', async () => {
    const { waiters } = setup();
    const waits = [1, 2, 3].map(() => waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }));
    let confirms = 0;
    const answer = response();
    await waiters.deliver('p1', answer, () => {
      confirms++;
      return Promise.resolve();
    });
    expect(confirms).toBe(1);
    expect(await Promise.all(waits)).toEqual(
      [1, 2, 3].map(() => ({ kind: 'answered', response: answer })),
    );
  });

  it('ends waiters with delivery_failed when confirm fails', async () => {
    const { timers, waiters } = setup();
    const waits = [
      waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }),
      waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }),
    ];
    const error = new Error('disk full');
    const result = await waiters.deliver('p1', response(), () => Promise.reject(error));
    expect(result).toEqual({ kind: 'confirm_failed', error });
    if (result.kind === 'confirm_failed') expect(result.error).toBe(error);
    expect(await Promise.all(waits)).toEqual([
      { kind: 'ended', reason: 'delivery_failed' },
      { kind: 'ended', reason: 'delivery_failed' },
    ]);
    expect(waiters.has('p1')).toBe(false);
    expect(timers.active).toBe(0);
  });

  it('treats a confirm that throws synchronously as a failure', async () => {
    const { waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    const error = new Error('boom');
    const result = await waiters.deliver('p1', response(), () => {
      throw error;
    });
    expect(result).toEqual({ kind: 'confirm_failed', error });
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'delivery_failed' });
  });

  it('returns no_waiter without confirming when nobody waits', async () => {
    const { waiters } = setup();
    let confirmed = false;
    const result = await waiters.deliver('p1', response(), () => {
      confirmed = true;
      return Promise.resolve();
    });
    expect(result).toEqual({ kind: 'no_waiter' });
    expect(confirmed).toBe(false);
  });

  it('returns no_waiter for a second delivery', async () => {
    const { waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    await waiters.deliver('p1', response(), confirmOk);
    await expect(waiters.deliver('p1', response(), confirmOk)).resolves.toEqual({
      kind: 'no_waiter',
    });
    await expect(wait).resolves.toMatchObject({ kind: 'answered' });
  });

  it('only reaches the waiters of its own pending id', async () => {
    const { waiters } = setup();
    const other = track(waiters.wait('p2', 's1', { timeoutMs: HOUR_MS }));
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    await waiters.deliver('p1', response(), confirmOk);
    await flush();
    expect(other.outcome).toBeUndefined();
    expect(waiters.has('p2')).toBe(true);
    expect(waiters.pendingIdsOf('s1')).toEqual(['p2']);
  });

  it('lets a later wait on the same pending id start afresh', async () => {
    const { waiters } = setup();
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    await waiters.deliver('p1', response(), confirmOk);
    const again = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    expect(waiters.has('p1')).toBe(true);
    await expect(waiters.deliver('p1', response(), confirmOk)).resolves.toEqual({
      kind: 'delivered',
    });
    await expect(again).resolves.toMatchObject({ kind: 'answered' });
  });
});

describe('LiveWaiters timeout', () => {
  it('ends the wait with timeout at exactly timeoutMs', async () => {
    const { timers, waiters } = setup();
    const wait = track(waiters.wait('p1', 's1', { timeoutMs: 1000 }));
    timers.advance(999);
    await flush();
    expect(wait.outcome).toBeUndefined();
    expect(waiters.has('p1')).toBe(true);

    timers.advance(1);
    await flush();
    expect(wait.outcome).toEqual({ kind: 'ended', reason: 'timeout' });
    expect(waiters.has('p1')).toBe(false);
    expect(waiters.pendingIdsOf('s1')).toEqual([]);
  });

  it('makes a later delivery find no waiter, without confirming', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    timers.advance(1000);
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'timeout' });
    let confirmed = false;
    const result = await waiters.deliver('p1', response(), () => {
      confirmed = true;
      return Promise.resolve();
    });
    expect(result).toEqual({ kind: 'no_waiter' });
    expect(confirmed).toBe(false);
  });

  it('times out one waiter without disturbing another on the same bundle', async () => {
    const { timers, waiters } = setup();
    const short = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    const long = waiters.wait('p1', 's1', { timeoutMs: 5000 });
    timers.advance(1000);
    await expect(short).resolves.toEqual({ kind: 'ended', reason: 'timeout' });
    expect(waiters.has('p1')).toBe(true);

    const answer = response();
    await expect(waiters.deliver('p1', answer, confirmOk)).resolves.toEqual({ kind: 'delivered' });
    await expect(long).resolves.toEqual({ kind: 'answered', response: answer });
  });

  it('cancels the timer once the wait settles', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    await waiters.deliver('p1', response(), confirmOk);
    expect(timers.active).toBe(0);
    timers.advance(10_000);
    await expect(wait).resolves.toMatchObject({ kind: 'answered' });
  });
});

describe('LiveWaiters abort', () => {
  it('ends the wait with caller_gone when the signal aborts', async () => {
    const { timers, waiters } = setup();
    const controller = new AbortController();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS, signal: controller.signal });
    controller.abort();
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'caller_gone' });
    expect(waiters.has('p1')).toBe(false);
    expect(timers.active).toBe(0);
    await expect(waiters.deliver('p1', response(), confirmOk)).resolves.toEqual({
      kind: 'no_waiter',
    });
  });

  it('ends at once with caller_gone when the signal is already aborted', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', {
      timeoutMs: HOUR_MS,
      signal: AbortSignal.abort(),
    });
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'caller_gone' });
    expect(waiters.has('p1')).toBe(false);
    expect(waiters.pendingIdsOf('s1')).toEqual([]);
    expect(timers.active).toBe(0);
  });

  it('leaves other waiters of the bundle waiting', async () => {
    const { waiters } = setup();
    const controller = new AbortController();
    const gone = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS, signal: controller.signal });
    const stays = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    controller.abort();
    await expect(gone).resolves.toEqual({ kind: 'ended', reason: 'caller_gone' });
    expect(waiters.has('p1')).toBe(true);
    const answer = response();
    await waiters.deliver('p1', answer, confirmOk);
    await expect(stays).resolves.toEqual({ kind: 'answered', response: answer });
  });

  it('ignores an abort after the wait has settled', async () => {
    const { waiters } = setup();
    const controller = new AbortController();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS, signal: controller.signal });
    await waiters.deliver('p1', response(), confirmOk);
    controller.abort();
    await expect(wait).resolves.toMatchObject({ kind: 'answered' });
  });

  it('ignores a timeout after the abort', async () => {
    const { timers, waiters } = setup();
    const controller = new AbortController();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    timers.advance(1000);
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'caller_gone' });
  });
});

describe('LiveWaiters: first settlement wins', () => {
  it('keeps delivery_failed when the timeout fires after a failed confirm', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    await waiters.deliver('p1', response(), () => Promise.reject(new Error('x')));
    timers.advance(1000);
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'delivery_failed' });
  });

  it('makes end during a confirm a no-op', async () => {
    const { waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    const gate = deferred();
    const delivery = waiters.deliver('p1', response(), () => gate.promise);
    expect(waiters.end('p1', 'cancelled')).toBe(false);
    expect(waiters.endSession('s1', 'detached')).toEqual([]);
    gate.resolve();
    await expect(delivery).resolves.toEqual({ kind: 'delivered' });
    await expect(wait).resolves.toMatchObject({ kind: 'answered' });
  });

  // A timeout while the durable confirmation is in flight must not take the answer away.
  it('ignores a timeout that fires while the delivery is confirming', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    const gate = deferred();
    const answer = response();
    const delivery = waiters.deliver('p1', answer, () => gate.promise);
    timers.advance(1000);
    gate.resolve();
    await expect(delivery).resolves.toEqual({ kind: 'delivered' });
    await expect(wait).resolves.toEqual({ kind: 'answered', response: answer });
  });

  it('ignores a timeout that fires after the delivery settled the waiter', async () => {
    const { timers, waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    const answer = response();
    await waiters.deliver('p1', answer, confirmOk);
    timers.advance(1000);
    await expect(wait).resolves.toEqual({ kind: 'answered', response: answer });
  });
});

describe('LiveWaiters.end and endSession', () => {
  it('ends every wait of one bundle with the given reason', async () => {
    const { timers, waiters } = setup();
    const waits = [
      waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }),
      waiters.wait('p1', 's1', { timeoutMs: HOUR_MS }),
    ];
    const other = track(waiters.wait('p2', 's1', { timeoutMs: HOUR_MS }));
    expect(waiters.end('p1', 'cancelled')).toBe(true);
    expect(await Promise.all(waits)).toEqual([
      { kind: 'ended', reason: 'cancelled' },
      { kind: 'ended', reason: 'cancelled' },
    ]);
    expect(waiters.has('p1')).toBe(false);
    expect(timers.active).toBe(1);
    await flush();
    expect(other.outcome).toBeUndefined();
  });

  it('returns false when the bundle has no waiter', () => {
    const { waiters } = setup();
    expect(waiters.end('p1', 'cancelled')).toBe(false);
  });

  it('returns false the second time', () => {
    const { waiters } = setup();
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    expect(waiters.end('p1', 'detached')).toBe(true);
    expect(waiters.end('p1', 'detached')).toBe(false);
  });

  it('makes a later delivery find no waiter', async () => {
    const { waiters } = setup();
    const wait = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    waiters.end('p1', 'detached');
    await expect(wait).resolves.toEqual({ kind: 'ended', reason: 'detached' });
    await expect(waiters.deliver('p1', response(), confirmOk)).resolves.toEqual({
      kind: 'no_waiter',
    });
  });

  it('ends only the waits of the given session', async () => {
    const { waiters } = setup();
    const a = waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    const b = waiters.wait('p2', 's1', { timeoutMs: HOUR_MS });
    const c = track(waiters.wait('p3', 's2', { timeoutMs: HOUR_MS }));
    expect(waiters.endSession('s1', 'cancelled')).toEqual(['p1', 'p2']);
    await expect(a).resolves.toEqual({ kind: 'ended', reason: 'cancelled' });
    await expect(b).resolves.toEqual({ kind: 'ended', reason: 'cancelled' });
    await flush();
    expect(c.outcome).toBeUndefined();
    expect(waiters.pendingIdsOf('s1')).toEqual([]);
    expect(waiters.pendingIdsOf('s2')).toEqual(['p3']);
  });

  it('returns an empty list for a session without waits', () => {
    const { waiters } = setup();
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    expect(waiters.endSession('s9', 'cancelled')).toEqual([]);
    expect(waiters.has('p1')).toBe(true);
  });
});

describe('LiveWaiters.pendingIdsOf and has', () => {
  it('lists the pending ids with a live waiter per session, once each', () => {
    const { waiters } = setup();
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    void waiters.wait('p1', 's1', { timeoutMs: HOUR_MS });
    void waiters.wait('p2', 's1', { timeoutMs: HOUR_MS });
    void waiters.wait('p3', 's2', { timeoutMs: HOUR_MS });
    expect(waiters.pendingIdsOf('s1')).toEqual(['p1', 'p2']);
    expect(waiters.pendingIdsOf('s2')).toEqual(['p3']);
    expect(waiters.pendingIdsOf('s3')).toEqual([]);
  });

  it('drops a pending id once its last waiter has gone', async () => {
    const { timers, waiters } = setup();
    const first = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    const second = waiters.wait('p1', 's1', { timeoutMs: 2000 });
    timers.advance(1000);
    await first;
    expect(waiters.pendingIdsOf('s1')).toEqual(['p1']);
    timers.advance(1000);
    await second;
    expect(waiters.pendingIdsOf('s1')).toEqual([]);
    expect(waiters.has('p1')).toBe(false);
  });

  it('lets a waiter no longer entitled to the answer go before the confirmation', async () => {
    const { waiters } = setup();
    const revoked = waiters.wait('p1', 's1', {
      timeoutMs: 1000,
      entitled: () => Promise.resolve(false),
    });
    const unreadable = waiters.wait('p1', 's1', {
      timeoutMs: 1000,
      entitled: () => Promise.reject(new Error('storage down')),
    });
    let confirmed = 0;
    const result = await waiters.deliver('p1', response(), () => {
      confirmed += 1;
      return Promise.resolve();
    });
    // As if they had left: the delivery takes the detached path, nothing was confirmed.
    expect(result).toEqual({ kind: 'no_waiter' });
    expect(confirmed).toBe(0);
    expect(await revoked).toEqual({ kind: 'ended', reason: 'revoked' });
    // A storage fault is no revocation: that caller is not told its token was revoked.
    expect(await unreadable).toEqual({ kind: 'ended', reason: 'delivery_failed' });
    expect(waiters.has('p1')).toBe(false);
  });

  it('lets a waiter whose caller left during the entitlement read go before the confirmation', async () => {
    const { waiters } = setup();
    const call = new AbortController();
    const left = waiters.wait('p1', 's1', {
      timeoutMs: 1000,
      signal: call.signal,
      // The read takes a moment, and the agent cancels its call meanwhile.
      entitled: () => {
        call.abort();
        return Promise.resolve(true);
      },
    });
    let confirmed = 0;
    const result = await waiters.deliver('p1', response(), () => {
      confirmed += 1;
      return Promise.resolve();
    });
    // Nobody would read the answer: the delivery takes the detached path, nothing was confirmed.
    expect(result).toEqual({ kind: 'no_waiter' });
    expect(confirmed).toBe(0);
    expect(await left).toEqual({ kind: 'ended', reason: 'caller_gone' });
  });

  it('hands the answer to the entitled waiters only', async () => {
    const { waiters } = setup();
    const kept = waiters.wait('p1', 's1', {
      timeoutMs: 1000,
      entitled: () => Promise.resolve(true),
    });
    const plain = waiters.wait('p1', 's1', { timeoutMs: 1000 });
    const gone = waiters.wait('p1', 's1', {
      timeoutMs: 1000,
      entitled: () => Promise.resolve(false),
    });
    const answer = response();
    expect(await waiters.deliver('p1', answer, confirmOk)).toEqual({ kind: 'delivered' });
    expect(await kept).toEqual({ kind: 'answered', response: answer });
    expect(await plain).toEqual({ kind: 'answered', response: answer });
    expect(await gone).toEqual({ kind: 'ended', reason: 'revoked' });
  });

  it('is false for an unknown pending id', () => {
    const { waiters } = setup();
    expect(waiters.has('nope')).toBe(false);
  });
});
