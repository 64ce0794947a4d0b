/**
 * In-process notice that a bundle was decided (its claim handed off) or can
 * no longer be (its session ended, a person cancelled it, or a newer turn
 * superseded it), for callers that wait on a bundle without being its live
 * waiter, such as an external agent's `wait_for_answer`. A hint only:
 * waiters re-read the store.
 */
export class DecisionBoard {
  private readonly listeners = new Map<string, Set<() => void>>();
  /** The session each listened bundle belongs to, once its waiter has read it. */
  private readonly sessions = new Map<string, string>();

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
      if (set.size === 0 && this.listeners.get(pendingId) === set) this.drop(pendingId);
    };
  }

  /** A waiter read the bundle: it belongs to `sessionId`, so that session's new turn concerns it. */
  belongsTo(pendingId: string, sessionId: string): void {
    if (this.listeners.has(pendingId)) this.sessions.set(pendingId, sessionId);
  }

  /**
   * The bundles listened to that may be of `sessionId`: those read to be,
   * and those whose waiter has not read it yet (it may be), so a new turn
   * between that read and `belongsTo` still reaches them.
   */
  listenedIn(sessionId: string): string[] {
    return [...this.listeners.keys()].filter((pendingId) => {
      const of = this.sessions.get(pendingId);
      return of === undefined || of === sessionId;
    });
  }

  /** The sessions of the bundles listened to whose waiters have read them. */
  sessionIds(): string[] {
    return [...new Set(this.sessions.values())];
  }

  /** Cancelled, superseded, or its session ended: the bundle expired, and its rows may be about to go. */
  ended(pendingId: string): void {
    this.decided(pendingId);
  }

  decided(pendingId: string): void {
    const set = this.listeners.get(pendingId);
    if (!set) return;
    this.drop(pendingId);
    for (const listener of set) listener();
  }

  private drop(pendingId: string): void {
    this.listeners.delete(pendingId);
    this.sessions.delete(pendingId);
  }
}
