/**
 * Which answers a restart left unconfirmed (pure; DESIGN §5.1 step 5). An
 * answer is handed off either to a live waiter (which clears the intent
 * first) or through a successor turn marked attempted before its prompt goes
 * out; the at-most-once rule then keeps it terminal. When the turn that
 * carried it never finished, nothing says whether the agent acted on it: that
 * answer is unconfirmed, and recovery writes a note offering to send it again.
 *
 * Start-up sees only turns a restart cut off (no agent outlives the server).
 * For each one this decides:
 * - An external agent's turn stays open: that agent is not Clarion's child,
 *   may outlive the restart and keeps asking in its one turn.
 * - Every other interrupted turn is closed. It carried an unconfirmed answer
 *   when it is a successor turn whose carried bundle is answered and in which
 *   the agent asked nothing (an ask there shows it ran on the prompt), or when
 *   it is its session's current turn and holds a bundle answered through its
 *   live waiter that no later ask in the turn follows.
 *
 * A bundle still carrying its intent was never handed off (recovery restores
 * or retires it first), and a rejection is not an answer to send again.
 *
 * A closed turn the stop cut off mid-work (`cutOff`) gets the note that the
 * turn ended and its message must be sent again, as a graceful stop writes
 * it, unless it gets an unconfirmed answer's note: that note already says the
 * turn ended before the agent finished it, and offers to send again what was
 * lost last. The agent had the turn's prompt (it asked in the turn, or the
 * prompt was that answer), so a second note asking for the message again
 * would ask the person to repeat what arrived.
 */

export interface BundleFacts {
  pendingId: string;
  /** The rows' one status, or `mixed` when they disagree (malformed: never noted). */
  status: 'pending' | 'answered' | 'rejected' | 'expired' | 'cancelled' | 'mixed';
  /** The delivery intent is still set on some row. */
  deliveryPending: boolean;
  createdAt: string;
  /** When the claim was made (for pending rows, meaningless). */
  respondedAt: string;
}

export interface InterruptedTurnFacts {
  turnId: string;
  /** The session's agent is external (not started by Clarion). */
  external: boolean;
  /** The turn is its session's current turn. */
  current: boolean;
  /** A successor turn: the bundle whose answer its prompt carried, when still readable. */
  carried?: BundleFacts;
  /** The bundles asked in this turn, oldest first. */
  asked: readonly BundleFacts[];
  /**
   * The agent was at work on this turn when the server stopped: its prompt
   * was sent (a person's message, or a successor's attempted prompt) and its
   * session was still running it as its current turn.
   */
  cutOff: boolean;
}

export type InterruptedTurnVerdict =
  | { kind: 'leave_open'; reason: 'external_agent' }
  /**
   * Close the turn and its tool calls; note each pending ID in `unconfirmed`, in this order,
   * and, when `interrupted`, that the turn ended and its message must be sent again.
   */
  | { kind: 'close'; unconfirmed: string[]; interrupted: boolean };

function handedOffAnswer(bundle: BundleFacts): boolean {
  return bundle.status === 'answered' && !bundle.deliveryPending;
}

export function decideInterruptedTurn(turn: InterruptedTurnFacts): InterruptedTurnVerdict {
  if (turn.external) return { kind: 'leave_open', reason: 'external_agent' };
  const unconfirmed: string[] = [];
  if (turn.carried && handedOffAnswer(turn.carried) && turn.asked.length === 0) {
    unconfirmed.push(turn.carried.pendingId);
  }
  // A bundle of an older turn was answered through a successor, which is the carrier.
  if (turn.current) {
    for (const bundle of turn.asked) {
      if (!handedOffAnswer(bundle)) continue;
      const askedAfter = turn.asked.some(
        (other) => other !== bundle && other.createdAt > bundle.respondedAt,
      );
      if (!askedAfter) unconfirmed.push(bundle.pendingId);
    }
  }
  return { kind: 'close', unconfirmed, interrupted: turn.cutOff && unconfirmed.length === 0 };
}
