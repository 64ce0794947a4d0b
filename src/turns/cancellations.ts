import type { Responder } from '../wire/index.js';

/**
 * Why a session's running turn is being ended, until the turn ends: who asked
 * to cancel it and where, so its transcript says "Cancelled by …" and keeps
 * them as a decision's record does (`Responder`), and whether its
 * session is being deleted, so its end waits for the deletion's outcome (its
 * rows gone, or kept by a delete that failed). Memory only: a cancel request
 * that a restart interrupts names nobody, and the row says just "Cancelled".
 * A name belongs to the turn that was running when the person asked: a
 * cancel that found that turn already over names nobody on a later one.
 */
export class CancelRequests {
  private readonly asked = new Map<string, { turnId: string; by: Responder }>();
  /** Per session, the deletions under way (two may run at once) and the end of the last. */
  private readonly deleting = new Map<
    string,
    { count: number; ended: () => void; over: Promise<void> }
  >();

  noted(sessionId: string, turnId: string, by: Responder): void {
    this.asked.set(sessionId, { turnId, by });
  }

  /** The person who asked to cancel `turnId`, once: the next cancelled turn is not theirs. */
  take(sessionId: string, turnId: string): Responder | undefined {
    const noted = this.asked.get(sessionId);
    this.asked.delete(sessionId);
    return noted?.turnId === turnId ? noted.by : undefined;
  }

  /** A deletion of the session began; counted, since two may run at once. */
  deletionStarted(sessionId: string): void {
    const under = this.deleting.get(sessionId);
    if (under) {
      under.count += 1;
      return;
    }
    let ended: () => void = () => undefined;
    const over = new Promise<void>((resolve) => {
      ended = resolve;
    });
    this.deleting.set(sessionId, { count: 1, ended, over });
  }

  /** That deletion ended, whichever way: a turn's end waiting for it finds its rows gone, or kept. */
  deletionEnded(sessionId: string): void {
    const under = this.deleting.get(sessionId);
    if (!under) return;
    under.count -= 1;
    if (under.count > 0) return;
    this.deleting.delete(sessionId);
    under.ended();
  }

  /**
   * The deletions of the session under way now, as one promise that resolves
   * once none is left (each ended, whichever way); `undefined` when none is.
   */
  deletionUnderWay(sessionId: string): Promise<void> | undefined {
    return this.deleting.get(sessionId)?.over;
  }
}
