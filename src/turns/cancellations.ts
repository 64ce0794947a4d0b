/**
 * Who asked to cancel a session's running turn, until the turn ends and its
 * transcript says so ("Cancelled by …"). Memory only: a cancel request that
 * a restart interrupts names nobody, and the row says just "Cancelled".
 */
export class CancelRequests {
  private readonly byName = new Map<string, string>();

  noted(sessionId: string, name: string): void {
    this.byName.set(sessionId, name);
  }

  /** The person who asked, once: the next cancelled turn is not theirs. */
  take(sessionId: string): string | undefined {
    const name = this.byName.get(sessionId);
    this.byName.delete(sessionId);
    return name;
  }
}
