/**
 * Starting a failed session's agent again (`POST /sessions/:id/restart`).
 * The failure is cleared and the session made idle under the session lock,
 * then the agent is started; if it fails again the session is failed again
 * with the new reason. Once it runs, the session's queue goes on.
 */
import { agentFailureOf } from '../agents/index.js';
import type { Principal } from '../auth/index.js';
import { canSeeSession, clearSessionFailure, failSession, getSession } from '../store/index.js';
import { failure, storableText, type Failure } from '../wire/index.js';
import { startNextQueued } from './admission.js';
import type { TurnsDeps } from './context.js';
import { ensureAgent } from './dispatch.js';
import { sessionFailed } from './session-failure.js';
import type { ShownSession } from './tasks.js';

export type RestartResult =
  ({ ok: true } & ShownSession) | Failure<'not_found' | 'conflict' | 'session_failed'>;

const SESSION_NOT_FOUND = failure('not_found', 'session not found');

export async function restartSession(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<RestartResult> {
  if (principal.kind !== 'user' || !(await canSeeSession(deps.store, principal, sessionId))) {
    return SESSION_NOT_FOUND;
  }
  const cleared = await deps.sessions.write(sessionId, async (write) => {
    const moved = await clearSessionFailure(write.tx, sessionId);
    write.moved(moved);
    return moved;
  });
  if (!cleared) {
    return (await getSession(deps.store, sessionId))
      ? failure('conflict', 'only a failed session can be restarted')
      : SESSION_NOT_FOUND;
  }
  try {
    await ensureAgent(deps, sessionId);
  } catch (error) {
    // A message admitted meanwhile may have started the agent first: then it runs, as asked.
    if (!deps.host.isStarted(sessionId)) return failAgain(deps, sessionId, error);
  }
  await startNextQueued(deps, sessionId);
  const session = (await getSession(deps.store, sessionId)) ?? cleared;
  return { ok: true, session, pendingAction: await deps.sessions.pendingAction(sessionId) };
}

async function failAgain(
  deps: TurnsDeps,
  sessionId: string,
  error: unknown,
): Promise<Failure<'not_found' | 'session_failed'>> {
  const failed = agentFailureOf(error) ?? {
    code: 'start_failed' as const,
    message: error instanceof Error ? error.message : String(error),
  };
  return deps.sessions.write(sessionId, async (write) => {
    const moved = await failSession(write.tx, sessionId, ['idle'], {
      code: failed.code,
      message: storableText(failed.message),
    });
    write.moved(moved);
    const session = moved ?? (await getSession(write.tx, sessionId));
    return session ? sessionFailed(session) : SESSION_NOT_FOUND;
  });
}
