/**
 * One connection's memory of which sessions its principal may see, so a burst
 * of events asks the database once per session, not once per event.
 *
 * Bounds: answers live `ttlMs`, and `clear` forgets them all when a
 * membership changes (a lost notice of that change is what `ttlMs` bounds);
 * at most `maxEntries` sessions are remembered (oldest first out).
 * Concurrent questions about one session share one lookup. A failed lookup
 * is never remembered, so the next event asks again.
 */
import type { Clock } from '../support/index.js';

type Entry =
  | { readonly kind: 'settled'; readonly visible: boolean; readonly expiresAtMs: number }
  | { readonly kind: 'pending'; readonly answer: Promise<boolean> };

export interface VisibilityCacheOptions {
  readonly check: (sessionId: string) => Promise<boolean>;
  readonly clock: Clock;
  readonly ttlMs: number;
  readonly maxEntries: number;
}

export class VisibilityCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: VisibilityCacheOptions) {}

  /** The remembered answer if it is still fresh; `undefined` means "ask". */
  peek(sessionId: string): boolean | undefined {
    const entry = this.entries.get(sessionId);
    if (entry?.kind !== 'settled') return undefined;
    if (entry.expiresAtMs <= this.options.clock.nowMs()) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return entry.visible;
  }

  /** The remembered answer, or one lookup shared by everyone asking meanwhile. */
  lookup(sessionId: string): Promise<boolean> {
    const known = this.peek(sessionId);
    if (known !== undefined) return Promise.resolve(known);
    const entry = this.entries.get(sessionId);
    if (entry?.kind === 'pending') return entry.answer;
    return this.refresh(sessionId);
  }

  /** Asks again regardless of what is remembered (an explicit subscribe). */
  refresh(sessionId: string): Promise<boolean> {
    const answer = this.options.check(sessionId);
    this.remember(sessionId, { kind: 'pending', answer });
    // A newer lookup may have replaced this one meanwhile; the newer answer wins.
    const stillCurrent = () => {
      const current = this.entries.get(sessionId);
      return current?.kind === 'pending' && current.answer === answer;
    };
    answer.then(
      (visible) => {
        if (!stillCurrent()) return;
        this.remember(sessionId, {
          kind: 'settled',
          visible,
          expiresAtMs: this.options.clock.nowMs() + this.options.ttlMs,
        });
      },
      () => {
        // The caller of this lookup sees and reports the failure; here it is only forgotten.
        if (stillCurrent()) this.entries.delete(sessionId);
      },
    );
    return answer;
  }

  /**
   * Forgets every answer (a membership changed): the next event of each
   * session asks again. A lookup still in flight is not remembered either.
   */
  clear(): void {
    this.entries.clear();
  }

  /** Forgets one session's answer (it was deleted). */
  forget(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(sessionId, entry);
  }
}
