/**
 * Recovery's last step: the turns a restart (or, on PostgreSQL, a dead
 * replica) cut off. For each open turn that holds something a person must
 * see, gathers its facts, asks `decideInterruptedTurn` (pure) what to do, and
 * does it in one session write: a note for every unconfirmed answer, or for a
 * turn cut off mid-work the note that it ended and its message must be sent
 * again (`loss` says why, as a graceful stop's does), its tool calls marked
 * failed, the turn completed. The other open turns are then closed in one
 * statement.
 *
 * Idempotent: a closed turn is never read again, and each note carries a
 * stable admission key (per bundle, per turn), checked before it is written,
 * so however often recovery runs a bundle or a turn gets one note.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import type { SessionWrite, SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  appendMessage,
  CLARIFICATION_TYPE,
  completeTurn,
  currentTurn,
  getSession,
  messageByAdmissionKey,
  messagesByPendingId,
  closeOpenTurns,
  endOpenToolCalls,
  getTurn,
  interruptedTurnsToExamine,
  turnIsOpen,
  turnHasPersonMessage,
  turnRowsOfTypes,
  type InterruptedTurn,
  type MessageRecord,
  type RepoContext,
  type SessionScope,
  type Store,
} from '../store/index.js';
import {
  DELIVERY_UNCONFIRMED_TYPE,
  deliveryUnconfirmedNoteKey,
  formatAnswerAsMessage,
  resendAdmissionKey,
  TURN_INTERRUPTED_TEXTS,
  turnInterruptedMetadata,
  turnInterruptedNoteKey,
  type DeliveryUnconfirmedNote,
  type TurnInterruptedLoss,
} from '../wire/index.js';
import { readBundle, type Bundle } from './bundle.js';
import { decideInterruptedTurn, type BundleFacts } from './unconfirmed-deliveries.js';

/** The session states of an agent at work on a turn. */
const AT_WORK_STATES = new Set(['running', 'waiting_for_input']);

/** What a reader of the transcript without the web app sees; the web app shows its own words. */
export const DELIVERY_UNCONFIRMED_TEXT =
  'Clarion restarted before the agent finished the turn that received this answer, ' +
  'so the agent may not have received it. Send it again as a new message if it still matters.';

export interface InterruptedTurnsReport {
  turnsClosed: number;
  deliveriesUnconfirmed: number;
  /** Turns cut off mid-work that got the note to send their message again. */
  turnsInterrupted: number;
}

export async function closeInterruptedTurns(
  deps: { store: Store; sessions: SessionWriter },
  logger: Logger,
  scope: SessionScope = { kind: 'all' },
  loss: TurnInterruptedLoss = 'restart',
): Promise<InterruptedTurnsReport> {
  const report: InterruptedTurnsReport = {
    turnsClosed: 0,
    deliveriesUnconfirmed: 0,
    turnsInterrupted: 0,
  };
  for (const turn of await interruptedTurnsToExamine(deps.store, scope)) {
    await deps.sessions.write(turn.task_session_id, async (write) => {
      if (!(await turnIsOpen(write.tx, turn.id))) return;
      const { facts, bundles } = await gather(write.tx, turn);
      const verdict = decideInterruptedTurn(facts);
      if (verdict.kind === 'leave_open') return;
      for (const pendingId of verdict.unconfirmed) {
        const bundle = bundles.get(pendingId);
        if (bundle && (await noteUnconfirmed(write, turn, bundle))) {
          report.deliveriesUnconfirmed++;
          logger.warn(
            { pending_id: pendingId, session_id: turn.task_session_id },
            'an answer was handed off but its turn never finished; noted for the person',
          );
        }
      }
      for (const closed of await endOpenToolCalls(write.tx, turn.id)) write.updated(closed);
      if (verdict.interrupted && (await noteInterrupted(write, turn, loss))) {
        report.turnsInterrupted++;
        logger.warn(
          { turn_id: turn.id, session_id: turn.task_session_id, loss },
          'a turn was cut off while its agent worked on it; noted for the person',
        );
      }
      await completeTurn(write.tx, turn.id);
      report.turnsClosed++;
    });
  }
  report.turnsClosed += await closeOpenTurns(deps.store, EXTERNAL_AGENT_PROFILE, scope);
  return report;
}

/**
 * In the write that ends a turn this server's own stop cut off (its agent
 * stopped under it): the notes recovery writes for a turn a crash cut off,
 * by the same verdict, so a person reads the same whichever way the server
 * stopped. An answer its agent may not have received is noted, with the
 * offer to send it again, in place of the note to send the message again;
 * without one, that note is written as before. Does not close the turn.
 */
export async function noteTurnCutByStop(
  write: SessionWrite,
  turnId: string,
  loss: TurnInterruptedLoss,
): Promise<void> {
  const record = await getTurn(write.tx, turnId);
  const session = await getSession(write.tx, write.sessionId);
  if (!record || !session) return;
  const turn: InterruptedTurn = {
    ...record,
    agent_profile: session.agent_profile,
    session_state: session.state,
  };
  const { facts, bundles } = await gather(write.tx, turn);
  const verdict = decideInterruptedTurn(facts);
  const unconfirmed = verdict.kind === 'close' ? verdict.unconfirmed : [];
  for (const pendingId of unconfirmed) {
    const bundle = bundles.get(pendingId);
    if (bundle) await noteUnconfirmed(write, turn, bundle);
  }
  if (unconfirmed.length === 0) await noteInterrupted(write, turn, loss);
}

async function gather(tx: RepoContext, turn: InterruptedTurn) {
  const rows = await turnRowsOfTypes(tx, turn.id, [CLARIFICATION_TYPE]);
  const bundles = new Map<string, Bundle>();
  const byPendingId = new Map<string, MessageRecord[]>();
  for (const row of rows) {
    const pendingId = row.metadata.pending_id;
    if (row.type !== CLARIFICATION_TYPE || typeof pendingId !== 'string') continue;
    byPendingId.set(pendingId, [...(byPendingId.get(pendingId) ?? []), row]);
  }
  const asked: BundleFacts[] = [];
  for (const [pendingId, bundleRows] of byPendingId) {
    const read = readBundle(pendingId, bundleRows);
    if (!read.ok) continue;
    bundles.set(pendingId, read.bundle);
    asked.push(factsOf(read.bundle));
  }
  let carried: BundleFacts | undefined;
  const carriedId = turn.metadata.prompt_dispatch_clarification_pending_id;
  if (typeof carriedId === 'string') {
    const read = readBundle(carriedId, await messagesByPendingId(tx, carriedId));
    if (read.ok && read.bundle.sessionId === turn.task_session_id) {
      bundles.set(carriedId, read.bundle);
      carried = factsOf(read.bundle);
    }
  }
  const current = (await currentTurn(tx, turn.task_session_id))?.id === turn.id;
  const session = await getSession(tx, turn.task_session_id);
  return {
    facts: {
      turnId: turn.id,
      external: turn.agent_profile === EXTERNAL_AGENT_PROFILE,
      current,
      ...(carried ? { carried } : {}),
      asked,
      cutOff:
        current &&
        session !== undefined &&
        AT_WORK_STATES.has(session.state) &&
        (await promptSent(tx, turn)),
    },
    bundles,
  };
}

/**
 * Whether the turn's prompt went to the agent: a person's message started it
 * (admission writes the message with the turn, then sends it), or it is a
 * successor turn whose prompt was attempted (published, the reservation's
 * keys are gone). An unattempted reservation sent nothing.
 */
async function promptSent(tx: RepoContext, turn: InterruptedTurn): Promise<boolean> {
  const { metadata } = turn;
  if (typeof metadata.prompt_dispatch_clarification_pending_id === 'string') {
    return metadata.prompt_dispatch_pending !== true || metadata.prompt_dispatch_attempted === true;
  }
  return turnHasPersonMessage(tx, turn.id);
}

function factsOf(bundle: Bundle): BundleFacts {
  const statuses = new Set(bundle.rows.map((row) => row.status));
  const [only] = statuses;
  return {
    pendingId: bundle.pendingId,
    status: statuses.size === 1 && only !== undefined ? only : 'mixed',
    deliveryPending: bundle.rows.some((row) => row.deliveryPending),
    createdAt: bundle.createdAt,
    respondedAt: bundle.rows[0]?.respondedAt ?? '',
  };
}

/** Writes the bundle's note in the turn that carried it, once; false when it was already there. */
function noteUnconfirmed(write: SessionWrite, turn: InterruptedTurn, bundle: Bundle) {
  const note: DeliveryUnconfirmedNote = {
    clarification_pending_id: bundle.pendingId,
    resend_text: formatAnswerAsMessage(
      bundle.questions.map((question) => ({ ...question, question_id: question.id })),
      bundle.rows.flatMap((row) => (row.response ? [row.response] : [])),
    ),
    resend_admission_key: resendAdmissionKey(bundle.pendingId),
  };
  return noteOnce(write, turn, deliveryUnconfirmedNoteKey(bundle.pendingId), {
    type: DELIVERY_UNCONFIRMED_TYPE,
    content: DELIVERY_UNCONFIRMED_TEXT,
    metadata: { ...note },
  });
}

/** Writes the note that the turn ended mid-work, once; false when it was already there. */
function noteInterrupted(write: SessionWrite, turn: InterruptedTurn, loss: TurnInterruptedLoss) {
  return noteOnce(write, turn, turnInterruptedNoteKey(turn.id), {
    type: 'status',
    content: TURN_INTERRUPTED_TEXTS[loss],
    metadata: turnInterruptedMetadata(loss),
  });
}

/**
 * A system note in `turn` under a stable admission key, checked before it is
 * written: however often recovery runs, the note is there once.
 */
async function noteOnce(
  write: SessionWrite,
  turn: InterruptedTurn,
  key: string,
  note: { type: string; content: string; metadata: Record<string, unknown> },
): Promise<boolean> {
  if (await messageByAdmissionKey(write.tx, write.sessionId, key)) return false;
  write.added(
    await appendMessage(write.tx, {
      sessionId: write.sessionId,
      taskId: turn.task_id,
      turnId: turn.id,
      authorType: 'system',
      ...note,
      admissionKey: key,
    }),
  );
  return true;
}
