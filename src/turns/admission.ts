/**
 * Message admission (DESIGN §2): a user message enters a session exactly once
 * per admission key. Sent now (a new turn), queued behind a running turn, or
 * refused; a repeat with the same key returns the first outcome and never adds
 * a second message or turn. Queued messages start when the turn ends.
 */
import type { Principal } from '../auth/index.js';
import type { SessionWrite } from '../events/index.js';
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
} from '../store/index.js';
import type { TurnsDeps } from './context.js';
import { failure, type Failure } from '../wire/index.js';
import { agentPlace, dispatchTurn } from './dispatch.js';
import { sessionFailed } from './session-failure.js';
import { deriveSessionInputMode } from './input-mode.js';

/**
 * Sent now, queued, or refused: a session that cannot take messages
 * (`session_refused`, with the reason), one whose agent failed
 * (`session_failed`, with the failure: also when this very message could
 * not start it), one whose running agent did not take the message
 * (`agent_unavailable`), one that is busy (`session_busy`; only machine
 * messages, which never wait in the persisted queue), or none the caller
 * can see. `sent` means the agent has the message.
 */
export type AdmissionResult =
  | { ok: true; outcome: 'sent'; message: MessageRecord }
  | { ok: true; outcome: 'queued'; item: QueuedMessage }
  | Failure<
      | 'session_refused'
      | 'session_failed'
      | 'agent_unavailable'
      | 'session_busy'
      | 'not_found'
      | 'quota_exceeded'
    >;

const SESSION_NOT_FOUND = failure('not_found', 'session not found');

interface Admitted {
  result: AdmissionResult;
  /** Set when this call started a turn that still has to reach the agent. */
  dispatch?: { turnId: string; text: string };
}

/** Inside a session write: decides and writes the admission, reporting what it added. */
async function admitInWrite(
  write: SessionWrite,
  input: {
    text: string;
    admissionKey: string;
    userId: string | null;
    metadata?: Record<string, unknown>;
  },
  options: {
    queueWhenBusy: boolean;
    /** A message that starts its session's agent needs a place first (`agentPlace`). */
    place?: ReturnType<typeof agentPlace>;
  },
): Promise<Admitted> {
  const { tx, sessionId } = write;
  const session = await getSession(tx, sessionId);
  if (!session) return { result: SESSION_NOT_FOUND };
  const sent = await messageByAdmissionKey(tx, sessionId, input.admissionKey);
  if (sent) return { result: { ok: true, outcome: 'sent', message: sent } };
  const queued = await queuedByAdmissionKey(tx, sessionId, input.admissionKey);
  if (queued) return { result: { ok: true, outcome: 'queued', item: queued } };

  // Before the mode: a failed session says why, and that a restart may help.
  if (session.state === 'failed') return { result: sessionFailed(session) };
  const mode = deriveSessionInputMode(session);
  if (mode.mode === 'refuse') {
    return { result: failure('session_refused', undefined, { reason: mode.reason }) };
  }
  if (mode.mode === 'queue') {
    if (!options.queueWhenBusy) {
      return { result: failure('session_busy', undefined, { reason: 'busy' }) };
    }
    const item = await enqueueMessage(tx, {
      sessionId,
      taskId: session.task_id,
      content: input.text,
      admissionKey: input.admissionKey,
      createdBy: input.userId,
    });
    return { result: { ok: true, outcome: 'queued', item } };
  }
  // Refused at the quota before anything is written: no message, no turn.
  const refused = await options.place?.claim(tx, session);
  if (refused) return { result: refused };
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
  write.added(message);
  write.moved(await transitionSession(tx, sessionId, ['idle'], 'running'));
  return {
    result: { ok: true, outcome: 'sent', message },
    dispatch: { turnId: turn.id, text: input.text },
  };
}

/** The admission's result once its turn reached the agent, or why it did not. */
async function dispatched(
  deps: TurnsDeps,
  sessionId: string,
  admitted: Admitted,
): Promise<AdmissionResult> {
  if (!admitted.dispatch) return admitted.result;
  const reached = await dispatchTurn(deps, sessionId, admitted.dispatch);
  return reached.ok ? admitted.result : reached;
}

/** Admits one user message into a session the principal can see. */
export async function admitMessage(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  input: { text: string; admissionKey: string },
): Promise<AdmissionResult> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) return SESSION_NOT_FOUND;
  const userId = principal.kind === 'user' ? principal.userId : null;
  const place = agentPlace(deps);
  try {
    const admitted = await deps.sessions.write(sessionId, (write) =>
      admitInWrite(write, { ...input, userId }, { queueWhenBusy: true, place }),
    );
    return await dispatched(deps, sessionId, admitted);
  } finally {
    place.release();
  }
}

/**
 * The queue driver: once a turn has ended, starts the next queued message.
 * Taking it off the queue and starting its turn happen under the session lock,
 * so a concurrent delete either wins before or finds it gone.
 */
export async function startNextQueued(deps: TurnsDeps, sessionId: string): Promise<void> {
  const admitted = await deps.sessions.write(sessionId, async (write) => {
    const session = await getSession(write.tx, sessionId);
    if (session?.state !== 'idle') return undefined;
    const next = await takeNextQueued(write.tx, sessionId);
    if (!next) return undefined;
    return admitInWrite(
      write,
      { text: next.content, admissionKey: next.admission_key, userId: next.created_by },
      { queueWhenBusy: false },
    );
  });
  if (!admitted) return;
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
  const place = agentPlace(deps);
  try {
    const admitted = await deps.sessions.write(sessionId, (write) =>
      admitInWrite(write, { ...input, userId: null }, { queueWhenBusy: false, place }),
    );
    return await dispatched(deps, sessionId, admitted);
  } finally {
    place.release();
  }
}
