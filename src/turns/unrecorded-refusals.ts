/**
 * Turns whose prompt the agent did not take, while the write that says so
 * (and frees their admission keys) is still under way: retried for minutes
 * while the storage cannot take it, after the person was already answered
 * (`admitMessage`). Until it lands, the store still shows the message under
 * its key as sent; a repeat of that key is told the truth from here instead.
 * One whose write gave up at its limit stays known, since the store still
 * says sent. Memory only: the write runs on this server, and a restart's
 * recovery ends such a turn (`resetInterruptedSessions`).
 */
export class UnrecordedRefusals {
  private readonly turnIds = new Set<string>();

  /** `turnId`'s refusal is written by `recorded`; it is forgotten once that commits. */
  track(turnId: string, recorded: Promise<unknown>): void {
    this.turnIds.add(turnId);
    recorded.then(
      () => this.turnIds.delete(turnId),
      () => undefined,
    );
  }

  has(turnId: string): boolean {
    return this.turnIds.has(turnId);
  }
}
