/**
 * The rules behind the session view's Stop and Delete (`session-actions.tsx`),
 * apart from React: when Stop is offered, how a Stop ended as the events tell
 * it, why an action failed in words a person understands, and where a tab
 * goes once what it showed is deleted.
 *
 * A cancel's reply (202) says only that the agent was asked: the turn ends by
 * the agent's report, and the server writes a `status` row with
 * `turn_outcome: 'cancelled'` in the same write that moves the session to
 * `idle`. So the model learns both at once, and a Stop is judged by the turn
 * it was pressed in: that row means it stopped; the turn over without one
 * means it had ended on its own first, and nothing was left to stop.
 */
import type { ApiFailure } from './api.js';
import type { ModelState } from './read-model.js';
import type { SessionState } from './types.js';
import { webSessionPath } from '../../../src/wire/constants.js';

/** The agent's turn is open: it runs, or waits on a question it asked. */
const TURN_OPEN_STATES: readonly SessionState[] = ['running', 'waiting_for_input'];

export function turnIsOpen(state: SessionState | undefined): boolean {
  return state !== undefined && TURN_OPEN_STATES.includes(state);
}

/** `gone`: the session was deleted (or is no longer visible) meanwhile. */
export type StopProgress = 'stopping' | 'stopped' | 'not_running' | 'gone';

/**
 * How a Stop pressed while `turnId` was the session's newest turn stands now.
 * Without a known turn (its transcript not loaded then) the newest one now is
 * judged.
 */
export function stopProgress(
  state: ModelState,
  sessionId: string,
  turnId: string | undefined,
): StopProgress {
  const session = state.sessions[sessionId];
  if (!session) return 'gone';
  const turn = turnId ?? session.latest_turn?.turn_id;
  const cancelled = Object.values(session.messages).some(
    (message) =>
      message.turn_id === turn &&
      message.type === 'status' &&
      message.metadata.turn_outcome === 'cancelled',
  );
  if (cancelled) return 'stopped';
  const sameTurn = turn === undefined || session.latest_turn?.turn_id === turn;
  return sameTurn && turnIsOpen(session.state) ? 'stopping' : 'not_running';
}

/**
 * Why a Stop or Delete failed, for the person: the storage refused the
 * change (503 `temporarily_unavailable`), the server is shutting down (503
 * `unavailable`), it is not there for this person (404), no reply came, or
 * anything else (the server's own words are shown).
 */
export type ActionFailure = 'storage' | 'shutting_down' | 'not_found' | 'network' | 'other';

export function actionFailureOf(failure: ApiFailure): ActionFailure {
  if (failure.kind === 'network') return 'network';
  if (failure.status === 404) return 'not_found';
  if (failure.status === 503 && failure.code === 'temporarily_unavailable') return 'storage';
  if (failure.status === 503 && failure.code === 'unavailable') return 'shutting_down';
  return 'other';
}

/**
 * Where a tab goes after deleting the session it shows: to another session
 * of the same task (the newest), or to the inbox when there is none or the
 * task went too.
 */
export function pathAfterDeletion(
  state: ModelState,
  deleted: { sessionId: string; taskId: string; withTask: boolean },
): string {
  if (deleted.withTask) return '/';
  const others = Object.values(state.sessions)
    .filter((session) => session.task_id === deleted.taskId && session.id !== deleted.sessionId)
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  const next = others[0];
  return next ? webSessionPath(next.id) : '/';
}
