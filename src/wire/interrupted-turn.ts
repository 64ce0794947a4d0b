/**
 * The transcript note for a turn that ended because Clarion stopped while the
 * agent worked on it: the person learns that the turn ended and that its
 * message must be sent again. A graceful stop writes it as the turn ends; a
 * crash's next start, or the replica that takes over a dead one's sessions,
 * writes it when recovery closes the turn. `metadata.loss` says why, as the
 * note for an agent request a restart ended does, so the web app can say it
 * in the reader's language; `content` is the text for everyone else.
 */

/** The note's `metadata.turn_outcome`. */
export const TURN_INTERRUPTED_OUTCOME = 'interrupted';

/**
 * Why the turn ended: this server stopped (a restart, a rolling restart's
 * step, a crash), or on PostgreSQL the replica that ran the agent died and
 * another took its sessions over.
 */
export const TURN_INTERRUPTED_LOSSES = ['restart', 'replica_gone'] as const;
export type TurnInterruptedLoss = (typeof TURN_INTERRUPTED_LOSSES)[number];

/** What readers without the web app see, per cause. */
export const TURN_INTERRUPTED_TEXTS: Readonly<Record<TurnInterruptedLoss, string>> = {
  restart:
    'Clarion stopped while the agent was working on this turn, so the turn ended. ' +
    'Send the message again if it still matters.',
  replica_gone:
    'The Clarion server running the agent stopped while the agent was working on this turn, ' +
    'so the turn ended. Send the message again if it still matters.',
};

/**
 * The note row's own admission key: recovery may run twice over one turn
 * (a start that failed part-way, a takeover retried), and one turn gets one
 * note.
 */
export function turnInterruptedNoteKey(turnId: string): string {
  return `turn-interrupted:${turnId}`;
}

export function turnInterruptedMetadata(loss: TurnInterruptedLoss): Record<string, string> {
  return { turn_outcome: TURN_INTERRUPTED_OUTCOME, loss };
}

/** The note's cause, when `metadata` is such a note's and this build knows its cause. */
export function turnInterruptedNoteOf(
  metadata: Readonly<Record<string, unknown>>,
): { loss: TurnInterruptedLoss } | undefined {
  if (metadata.turn_outcome !== TURN_INTERRUPTED_OUTCOME) return undefined;
  const { loss } = metadata;
  return isLoss(loss) ? { loss } : undefined;
}

function isLoss(value: unknown): value is TurnInterruptedLoss {
  return (TURN_INTERRUPTED_LOSSES as readonly unknown[]).includes(value);
}
