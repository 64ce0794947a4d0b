/**
 * Live waiters: the in-memory promises that blocked `ask_user_question` calls
 * wait on (DESIGN §5). Memory only; a restart loses them, and the durable rows
 * then make the bundle detached-but-answerable.
 *
 * Each wait settles exactly once. Delivery takes the whole entry first, so a
 * timeout racing a delivery is a no-op; the durable confirmation runs before
 * any waiter sees the answer, so an agent never holds an answer whose
 * delivery intent is still set. A waiter whose caller may no longer have the
 * answer (its token revoked: `entitled`), or left while that was read, is
 * let go before that confirmation: the answer takes the detached path.
 */
import type { Timers } from '../support/index.js';
import type { ClarificationResponse } from './outcome.js';

export type WaitEnd =
  | 'timeout'
  | 'caller_gone'
  | 'detached'
  | 'cancelled'
  /** A newer turn became the session's current one: nobody may answer the bundle now. */
  | 'superseded'
  | 'delivery_failed'
  /** Another replica took the session over while this one did not run; its rows are not ours. */
  | 'fenced'
  /** The caller's credential was revoked: it may not have the answer. */
  | 'revoked';

export type WaitOutcome =
  { kind: 'answered'; response: ClarificationResponse } | { kind: 'ended'; reason: WaitEnd };

export type DeliveryResult =
  { kind: 'delivered' } | { kind: 'no_waiter' } | { kind: 'confirm_failed'; error: unknown };

interface Waiter {
  settled: boolean;
  /** Claimed by a delivery: only that delivery settles it now. */
  taken: boolean;
  settle(outcome: WaitOutcome): void;
  /** Whether the caller may still have the answer; absent, it may. */
  entitled?: () => Promise<boolean>;
  /** Whether the caller has left (its signal aborted): nobody would read an answer handed to it. */
  left(): boolean;
}

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Read once a delivery has taken this waiter, before the answer is
   * confirmed: false (or a failed read) lets the waiter go without it.
   */
  entitled?: () => Promise<boolean>;
}

interface Entry {
  sessionId: string;
  waiters: Set<Waiter>;
}

export class LiveWaiters {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly timers: Timers) {}

  /**
   * Waits for the bundle's answer. Ends without one after `timeoutMs`, when
   * `signal` aborts (the agent's call went away), or when the session or
   * bundle is ended here. Several waits on one bundle (an agent's retry) all
   * get the same answer.
   */
  wait(pendingId: string, sessionId: string, options: WaitOptions): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      let entry = this.entries.get(pendingId);
      if (!entry) {
        entry = { sessionId, waiters: new Set() };
        this.entries.set(pendingId, entry);
      }
      const owner = entry;
      const onAbort = () => {
        end({ kind: 'ended', reason: 'caller_gone' });
      };
      const timer = this.timers.setTimeout(() => {
        end({ kind: 'ended', reason: 'timeout' });
      }, options.timeoutMs);
      const waiter: Waiter = {
        settled: false,
        taken: false,
        settle: (outcome) => {
          if (waiter.settled) return;
          waiter.settled = true;
          timer.cancel();
          options.signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
        ...(options.entitled ? { entitled: options.entitled } : {}),
        left: () => options.signal?.aborted === true,
      };
      const end = (outcome: WaitOutcome) => {
        if (waiter.settled || waiter.taken) return;
        owner.waiters.delete(waiter);
        if (owner.waiters.size === 0 && this.entries.get(pendingId) === owner) {
          this.entries.delete(pendingId);
        }
        waiter.settle(outcome);
      };
      owner.waiters.add(waiter);
      if (options.signal?.aborted) {
        onAbort();
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  has(pendingId: string): boolean {
    return (this.entries.get(pendingId)?.waiters.size ?? 0) > 0;
  }

  /** The sessions with a live waiter. */
  sessionIds(): string[] {
    return [...new Set([...this.entries.values()].map((entry) => entry.sessionId))];
  }

  /** Pending IDs with a live waiter in the session. */
  pendingIdsOf(sessionId: string): string[] {
    return [...this.entries].filter(([, entry]) => entry.sessionId === sessionId).map(([id]) => id);
  }

  /**
   * Hands `response` to the bundle's live waiters. `confirm` durably clears
   * the delivery intent and runs before any waiter is released; if it fails,
   * the waiters end without the answer and the caller restores the claim.
   * Waiters no longer entitled to it end first (`revoked`); with none left it
   * is `no_waiter`, and nothing was confirmed.
   */
  async deliver(
    pendingId: string,
    response: ClarificationResponse,
    confirm: () => Promise<void>,
  ): Promise<DeliveryResult> {
    const entry = this.entries.get(pendingId);
    if (!entry || entry.waiters.size === 0) return { kind: 'no_waiter' };
    this.entries.delete(pendingId);
    const taken = [...entry.waiters];
    // From here a timeout or abort must not end these waits: the answer is theirs.
    for (const waiter of taken) waiter.taken = true;
    const waiters = present(await entitledOnly(taken));
    if (waiters.length === 0) return { kind: 'no_waiter' };
    try {
      await confirm();
    } catch (error) {
      for (const waiter of waiters) waiter.settle({ kind: 'ended', reason: 'delivery_failed' });
      return { kind: 'confirm_failed', error };
    }
    for (const waiter of waiters) waiter.settle({ kind: 'answered', response });
    return { kind: 'delivered' };
  }

  /** Ends one bundle's waits without an answer; true when there were any. */
  end(pendingId: string, reason: WaitEnd): boolean {
    const entry = this.entries.get(pendingId);
    if (!entry) return false;
    this.entries.delete(pendingId);
    for (const waiter of entry.waiters) waiter.settle({ kind: 'ended', reason });
    return entry.waiters.size > 0;
  }

  /** Ends every wait there is (the server is stopping). */
  endAll(reason: WaitEnd): void {
    for (const pendingId of [...this.entries.keys()]) this.end(pendingId, reason);
  }

  /** Ends every wait of a session; returns the pending IDs that had one. */
  endSession(sessionId: string, reason: WaitEnd): string[] {
    const ended = this.pendingIdsOf(sessionId);
    for (const pendingId of ended) this.end(pendingId, reason);
    return ended;
  }
}

/**
 * The waiters whose callers are still there once the entitlement reads are
 * done: a caller that left meanwhile (an agent cancelling its call) ends as
 * if it had left before, so the answer takes the detached path rather than
 * go to a result nobody reads. One that leaves during the confirmation is
 * past saving: its answer is already marked delivered.
 */
function present(waiters: readonly Waiter[]): Waiter[] {
  return waiters.filter((waiter) => {
    if (!waiter.left()) return true;
    waiter.settle({ kind: 'ended', reason: 'caller_gone' });
    return false;
  });
}

/** The waiters still entitled to an answer; the others end without it. */
async function entitledOnly(waiters: readonly Waiter[]): Promise<Waiter[]> {
  const checked = await Promise.all(
    waiters.map(async (waiter) => {
      // A read that fails cannot show the caller may have it, nor that it was revoked.
      const entitled = waiter.entitled ? await waiter.entitled().catch(() => undefined) : true;
      if (entitled === false) waiter.settle({ kind: 'ended', reason: 'revoked' });
      if (entitled === undefined) waiter.settle({ kind: 'ended', reason: 'delivery_failed' });
      return entitled === true;
    }),
  );
  return waiters.filter((_, index) => checked[index]);
}
