/**
 * Why a session's running turn is being ended, until the turn ends: who asked
 * to cancel it, so its transcript says "Cancelled by …", and whether its
 * session is being deleted, so its end writes nothing. Memory only: a cancel
 * request that a restart interrupts names nobody, and the row says just
 * "Cancelled".
 */
export class CancelRequests {
  private readonly byName = new Map<string, string>();
  private readonly deleting = new Map<string, number>();

  noted(sessionId: string, name: string): void {
    this.byName.set(sessionId, name);
  }

  /** The person who asked, once: the next cancelled turn is not theirs. */
  take(sessionId: string): string | undefined {
    const name = this.byName.get(sessionId);
    this.byName.delete(sessionId);
    return name;
  }

  /** A deletion of the session began; counted, since two may run at once. */
  deletionStarted(sessionId: string): void {
    this.deleting.set(sessionId, (this.deleting.get(sessionId) ?? 0) + 1);
  }

  /** That deletion ended, whichever way: a turn's end that comes later finds its rows gone, or kept. */
  deletionEnded(sessionId: string): void {
    const left = (this.deleting.get(sessionId) ?? 0) - 1;
    if (left > 0) this.deleting.set(sessionId, left);
    else this.deleting.delete(sessionId);
  }

  /** Whether a deletion of the session is under way: its agent is stopped by it. */
  beingDeleted(sessionId: string): boolean {
    return this.deleting.has(sessionId);
  }
}
