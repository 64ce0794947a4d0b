/**
 * Start-up recovery's last step: the turns a restart cut off. For each open
 * turn that holds something a person must see, gathers its facts, asks
 * `decideInterruptedTurn` (pure) what to do, and does it in one session write:
 * a note for every unconfirmed answer, its tool calls marked failed, the turn
 * completed. The other open turns are then closed in one statement.
 *
 * Idempotent: a closed turn is never read again, and each note carries a
 * stable admission key per bundle, checked before it is written, so however
 * often recovery runs a bundle gets one note.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import type { SessionWrite, SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  appendMessage,
  CLARIFICATION_TYPE,
  completeTurn,
  currentTurn,
  messageByAdmissionKey,
  messagesByPendingId,
  closeOpenTurns,
  endOpenToolCalls,
  interruptedTurnsToExamine,
  turnIsOpen,
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
  type DeliveryUnconfirmedNote,
} from '../wire/index.js';
import { readBundle, type Bundle } from './bundle.js';
import { decideInterruptedTurn, type BundleFacts } from './unconfirmed-deliveries.js';

/** What a reader of the transcript without the web app sees; the web app shows its own words. */
export const DELIVERY_UNCONFIRMED_TEXT =
  'Clarion restarted before the agent finished the turn that received this answer, ' +
  'so the agent may not have received it. Send it again as a new message if it still matters.';

export interface InterruptedTurnsReport {
  turnsClosed: number;
  deliveriesUnconfirmed: number;
}

export async function closeInterruptedTurns(
  deps: { store: Store; sessions: SessionWriter },
  logger: Logger,
  scope: SessionScope = { kind: 'all' },
): Promise<InterruptedTurnsReport> {
  const report: InterruptedTurnsReport = { turnsClosed: 0, deliveriesUnconfirmed: 0 };
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
      await completeTurn(write.tx, turn.id);
      report.turnsClosed++;
    });
  }
  report.turnsClosed += await closeOpenTurns(deps.store, EXTERNAL_AGENT_PROFILE, scope);
  return report;
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
  return {
    facts: {
      turnId: turn.id,
      external: turn.agent_profile === EXTERNAL_AGENT_PROFILE,
      current,
      ...(carried ? { carried } : {}),
      asked,
    },
    bundles,
  };
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
async function noteUnconfirmed(
  write: SessionWrite,
  turn: InterruptedTurn,
  bundle: Bundle,
): Promise<boolean> {
  const key = deliveryUnconfirmedNoteKey(bundle.pendingId);
  if (await messageByAdmissionKey(write.tx, write.sessionId, key)) return false;
  const note: DeliveryUnconfirmedNote = {
    clarification_pending_id: bundle.pendingId,
    resend_text: formatAnswerAsMessage(
      bundle.questions.map((question) => ({ ...question, question_id: question.id })),
      bundle.rows.flatMap((row) => (row.response ? [row.response] : [])),
    ),
    resend_admission_key: resendAdmissionKey(bundle.pendingId),
  };
  write.added(
    await appendMessage(write.tx, {
      sessionId: write.sessionId,
      taskId: turn.task_id,
      turnId: turn.id,
      authorType: 'system',
      type: DELIVERY_UNCONFIRMED_TYPE,
      content: DELIVERY_UNCONFIRMED_TEXT,
      metadata: { ...note },
      admissionKey: key,
    }),
  );
  return true;
}
