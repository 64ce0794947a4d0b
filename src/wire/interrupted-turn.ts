/**
 * The transcript note for a turn a stop of Clarion ended while the agent
 * worked on it: the person learns that the turn ended and that its message
 * must be sent again. `metadata.loss` says why, as the note for an agent
 * request a restart ended does, so the web app can say it in the reader's
 * language; `content` is the text for everyone else.
 */

/** The note's `metadata.turn_outcome`. */
export const TURN_INTERRUPTED_OUTCOME = 'interrupted';

/** Why the turn ended: this server stopped (a restart, a rolling restart's step). */
export type TurnInterruptedLoss = 'restart';

export const TURN_INTERRUPTED_TEXT =
  'Clarion stopped while the agent was working on this turn, so the turn ended. ' +
  'Send the message again if it still matters.';

export function turnInterruptedMetadata(loss: TurnInterruptedLoss): Record<string, string> {
  return { turn_outcome: TURN_INTERRUPTED_OUTCOME, loss };
}

/** The note's cause, when `metadata` is such a note's and this build knows its cause. */
export function turnInterruptedNoteOf(
  metadata: Readonly<Record<string, unknown>>,
): { loss: TurnInterruptedLoss } | undefined {
  if (metadata.turn_outcome !== TURN_INTERRUPTED_OUTCOME) return undefined;
  return metadata.loss === 'restart' ? { loss: metadata.loss } : undefined;
}
