/**
 * In-process notice that a bundle was decided (its claim handed off) or can
 * no longer be (its session ended, or a person cancelled it), for callers that wait on a bundle without
 * being its live waiter, such as an external agent's `wait_for_answer`. A
 * hint only: waiters re-read the store.
 */
export class DecisionBoard {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `listener` once the bundle is decided or ended; returns a function that stops listening. */
  listen(pendingId: string, listener: () => void): () => void {
    let set = this.listeners.get(pendingId);
    if (!set) {
      set = new Set();
      this.listeners.set(pendingId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(pendingId) === set) this.listeners.delete(pendingId);
    };
  }

  /** Cancelled, or its session ended: the bundle expired, and its rows may be about to go. */
  ended(pendingId: string): void {
    this.decided(pendingId);
  }

  decided(pendingId: string): void {
    const set = this.listeners.get(pendingId);
    if (!set) return;
    this.listeners.delete(pendingId);
    for (const listener of set) listener();
  }
}
