/**
 * The end of a claim's delivery when nothing more is handed over (the live
 * hand-off's confirmation, a rejection, an external agent's decision): its
 * delivery intent is cleared, and a session waiting for input runs again
 * unless another of its questions is still open. A decision recorded for an
 * external agent with no call of it to take it is marked for that agent to
 * collect (`uncollected-answers.ts`), whether the delivery runner ends it or
 * a start-up recovery ends it for a server that died before it could: there
 * is nothing more to such a delivery, so neither can run it twice.
 */
import type { SessionWriter } from '../events/index.js';
import {
  clearDeliveryIntent,
  endWaitWhenNoneOpen,
  markAwaitingCollection,
  retireClaim,
} from '../store/index.js';

/** The claim being delivered was put back or retired by someone else meanwhile. */
export class ClaimTakenBack extends Error {
  constructor(pendingId: string) {
    super(`the claim of ${pendingId} was taken back before its hand-off`);
    this.name = 'ClaimTakenBack';
  }
}

export interface IntentClear {
  readonly sessionId: string;
  readonly pendingId: string;
  /** The claim's rows: all of them are cleared, or none. */
  readonly ids: readonly string[];
  /** No call of the session's external agent took the decision: it is kept for collection. */
  readonly forCollection: boolean;
  /**
   * A recovery's judgement of who took the delivery (`null`: nobody): the
   * clear holds only while that is still so, and a replica that took it
   * since keeps it. Absent for the taker itself.
   */
  readonly takenBy?: string | null;
}

/** Clears the claim's intent; false, with nothing changed, when the claim is no longer all there. */
export async function clearClaimIntent(
  sessions: SessionWriter,
  { sessionId, pendingId, ids, forCollection, takenBy }: IntentClear,
): Promise<boolean> {
  try {
    await sessions.write(sessionId, async (write) => {
      const cleared =
        takenBy === undefined
          ? await clearDeliveryIntent(write.tx, ids)
          : await retireClaim(write.tx, ids, takenBy);
      // Thrown to roll back whatever part of the claim was still there.
      if (cleared.length !== ids.length) throw new ClaimTakenBack(pendingId);
      if (forCollection) await markAwaitingCollection(write.tx, ids);
      write.updated(...cleared);
      write.waitEnded(await endWaitWhenNoneOpen(write.tx, sessionId));
    });
    return true;
  } catch (error) {
    if (error instanceof ClaimTakenBack) return false;
    throw error;
  }
}
