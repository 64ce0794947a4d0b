/**
 * Message admission (DESIGN §2): a user message enters a session exactly once
 * per admission key. Sent now (a new turn), queued behind a running turn, or
 * refused; a repeat with the same key returns the first outcome and never adds
 * a second message or turn. Queued messages start when the turn ends.
 */
import type { Principal } from '../auth/principal.js';
import { publishAll, stageEvents } from '../events/session-publication.js';
import type { ClarionEvent } from '../events/types.js';
import {
  appendMessage,
  canSeeSession,
  enqueueMessage,
  getSession,
  messageByAdmissionKey,
  queuedByAdmissionKey,
  startTurn,
  takeNextQueued,
  transitionSession,
  type MessageRecord,
  type QueuedMessage,
  type RepoContext,
} from '../store/index.js';
import type { TurnsDeps } from './context.js';
import { dispatchTurn } from './dispatch.js';
import { deriveSessionInputMode } from './input-mode.js';

export type AdmissionResult =
  | { outcome: 'sent'; message: MessageRecord }
  | { outcome: 'queued'; item: QueuedMessage }
  | { outcome: 'refused'; reason: 'session_ended' | 'external_agent' }
  /** Only for machine messages, which never wait in the persisted queue. */
  | { outcome: 'busy' }
  | { outcome: 'not_found' };

interface Admitted {
  result: AdmissionResult;
  events: ClarionEvent[];
  /** Set when this call started a turn that still has to reach the agent. */
  dispatch?: { turnId: string; text: string };
}

async function admitInTransaction(
  tx: RepoContext,
  sessionId: string,
  input: {
    text: string;
    admissionKey: string;
    userId: string | null;
    metadata?: Record<string, unknown>;
  },
  options: { queueWhenBusy: boolean },
): Promise<Admitted> {
  await tx.dialect.lockSession(tx.db, sessionId);
  const session = await getSession(tx, sessionId);
  if (!session) return { result: { outcome: 'not_found' }, events: [] };
  const sent = await messageByAdmissionKey(tx, sessionId, input.admissionKey);
  if (sent) return { result: { outcome: 'sent', message: sent }, events: [] };
  const queued = await queuedByAdmissionKey(tx, sessionId, input.admissionKey);
  if (queued) return { result: { outcome: 'queued', item: queued }, events: [] };

  const mode = deriveSessionInputMode(session);
  if (mode.mode === 'refuse') {
    return { result: { outcome: 'refused', reason: mode.reason }, events: [] };
  }
  if (mode.mode === 'queue') {
    if (!options.queueWhenBusy) return { result: { outcome: 'busy' }, events: [] };
    const item = await enqueueMessage(tx, {
      sessionId,
      taskId: session.task_id,
      content: input.text,
      admissionKey: input.admissionKey,
      createdBy: input.userId,
    });
    return { result: { outcome: 'queued', item }, events: [] };
  }
  const turn = await startTurn(tx, { sessionId, taskId: session.task_id });
  const message = await appendMessage(tx, {
    sessionId,
    taskId: session.task_id,
    turnId: turn.id,
    authorType: 'user',
    type: 'message',
    content: input.text,
    admissionKey: input.admissionKey,
    metadata: { ...(input.userId ? { user_id: input.userId } : {}), ...input.metadata },
  });
  const moved = await transitionSession(tx, sessionId, ['idle'], 'running');
  const events = await stageEvents(tx, sessionId, {
    added: [message],
    ...(moved ? { state: moved.state } : {}),
  });
  return {
    result: { outcome: 'sent', message },
    events,
    dispatch: { turnId: turn.id, text: input.text },
  };
}

/** Admits one user message into a session the principal can see. */
export async function admitMessage(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  input: { text: string; admissionKey: string },
): Promise<AdmissionResult> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) return { outcome: 'not_found' };
  const userId = principal.kind === 'user' ? principal.userId : null;
  const admitted = await deps.store.transaction((tx) =>
    admitInTransaction(tx, sessionId, { ...input, userId }, { queueWhenBusy: true }),
  );
  publishAll(deps.events, admitted.events);
  if (admitted.dispatch) await dispatchTurn(deps, sessionId, admitted.dispatch);
  return admitted.result;
}

/**
 * The queue driver: once a turn has ended, starts the next queued message.
 * Taking it off the queue and starting its turn happen under the session lock,
 * so a concurrent delete either wins before or finds it gone.
 */
export async function startNextQueued(deps: TurnsDeps, sessionId: string): Promise<void> {
  const admitted = await deps.store.transaction(async (tx) => {
    await tx.dialect.lockSession(tx.db, sessionId);
    const session = await getSession(tx, sessionId);
    if (session?.state !== 'idle') return undefined;
    const next = await takeNextQueued(tx, sessionId);
    if (!next) return undefined;
    return admitInTransaction(
      tx,
      sessionId,
      { text: next.content, admissionKey: next.admission_key, userId: next.created_by },
      { queueWhenBusy: false },
    );
  });
  if (!admitted) return;
  publishAll(deps.events, admitted.events);
  if (admitted.dispatch) await dispatchTurn(deps, sessionId, admitted.dispatch);
}

/**
 * A machine-owned message (a user-input follow-up): admitted now or not at
 * all, never written to the persisted queue, keyed so repeats are one message.
 */
export async function admitMachineMessage(
  deps: TurnsDeps,
  sessionId: string,
  input: { text: string; admissionKey: string; metadata: Record<string, unknown> },
): Promise<AdmissionResult> {
  const admitted = await deps.store.transaction((tx) =>
    admitInTransaction(tx, sessionId, { ...input, userId: null }, { queueWhenBusy: false }),
  );
  publishAll(deps.events, admitted.events);
  if (admitted.dispatch) await dispatchTurn(deps, sessionId, admitted.dispatch);
  return admitted.result;
}
