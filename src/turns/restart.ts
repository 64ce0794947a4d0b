/**
 * Starting a failed session's agent again (`POST /sessions/:id/restart`).
 * Under the session lock the failure is cleared and the session made
 * `starting`, with a running-agent place held for it (the quota, as for a
 * message that starts an agent); then the agent starts as an admitted
 * message's does (`startAgentLater`): in the background, bounded by the
 * host's start timeout, the session's queue going on once it runs. The
 * request waits for that start only `ADMISSION_START_WAIT_MS`: a start that
 * failed by then is refused with the new reason (409 `session_failed`); one
 * still under way answers the session `starting`, and fails it later if it
 * fails. Neither the start nor the queued message's dispatch holds the reply.
 * A session whose task lost its person (`owner_deleted`), or whose person no
 * longer belongs to the task's workspace (`owner_removed`), is refused before
 * anything changes: no agent may act for nobody, nor for someone who may not
 * see its task, and its recorded reason stays.
 */
import type { Principal } from '../auth/index.js';
import {
  canSeeSession,
  clearSessionFailure,
  getSession,
  getTask,
  getWorkspaceMember,
} from '../store/index.js';
import { failure, type Failure } from '../wire/index.js';
import { endsInTime, startAgentLater } from './admission.js';
import type { TurnsDeps } from './context.js';
import { agentPlace } from './dispatch.js';
import { sessionFailed } from './session-failure.js';
import type { ShownSession } from './tasks.js';

export type RestartResult =
  | ({ ok: true } & ShownSession)
  | Failure<
      | 'not_found'
      | 'conflict'
      | 'owner_deleted'
      | 'owner_removed'
      | 'session_failed'
      | 'quota_exceeded'
    >;

const SESSION_NOT_FOUND = failure('not_found', 'session not found');

export async function restartSession(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<RestartResult> {
  if (principal.kind !== 'user' || !(await canSeeSession(deps.store, principal, sessionId))) {
    return SESSION_NOT_FOUND;
  }
  const place = agentPlace(deps);
  try {
    const cleared = await deps.sessions.write(sessionId, async (write) => {
      const session = await getSession(write.tx, sessionId);
      if (!session) return SESSION_NOT_FOUND;
      if (session.state !== 'failed') {
        return failure('conflict', 'only a failed session can be restarted');
      }
      const task = await getTask(write.tx, session.task_id);
      if (session.failure_code === 'owner_deleted' || task?.created_by === null) {
        return failure('owner_deleted');
      }
      // Nobody may run an agent for a person the workspace no longer holds: added back, they may.
      const owner = task?.created_by;
      if (task && owner && !(await getWorkspaceMember(write.tx, task.workspace_id, owner))) {
        return failure('owner_removed');
      }
      // Refused at the quota before anything changes: the session stays failed, as it says.
      const refused = await place.claim(write.tx, session);
      if (refused) return refused;
      const moved = await clearSessionFailure(write.tx, sessionId);
      write.moved(moved);
      return moved ? { ok: true as const } : SESSION_NOT_FOUND;
    });
    if (!cleared.ok) return cleared;
    const slot = place.take();
    // A start that failed this session may still be ending: this one begins after it.
    const ending = deps.starts.current(sessionId);
    const started = ending
      ? ending.then(() => startAgentLater(deps, sessionId, slot))
      : startAgentLater(deps, sessionId, slot);
    if (started) await endsInTime(deps.timers, started);
  } finally {
    place.release();
  }
  const session = await getSession(deps.store, sessionId);
  if (!session) return SESSION_NOT_FOUND;
  if (session.state === 'failed') return sessionFailed(session);
  return { ok: true, session, pendingAction: await deps.sessions.pendingAction(sessionId) };
}
