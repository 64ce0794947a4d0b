/**
 * The sessions whose agents acted for a person an admin deleted, or removed
 * from the workspace of the tasks they created. The person's deletion took
 * their agents' tokens with it, and no agent starts for a task without its
 * creator, or whose creator no longer belongs to its workspace
 * (`ensureAgent`), so nothing asked there could reach its agent again: left
 * alone, its questions would wait for a person forever while its agent had
 * already given up on them, or its agent would go on acting for someone who
 * may no longer see what it does. Each such session fails saying why
 * (`owner_deleted`, `owner_removed`), which expires its open questions for
 * everyone who sees them and ends the waits on them, and its agent is
 * stopped (here, or by the lease holder, told in the same write).
 */
import { failSession } from '../store/index.js';
import { LIVE_SESSION_STATES } from '../wire/index.js';
import type { TurnsDeps } from './context.js';
import { confirmLease } from './fencing.js';

/** Why a session's person is gone from it: deleted, or removed from its task's workspace. */
export type OwnerGone = 'owner_deleted' | 'owner_removed';

export const OWNER_GONE_MESSAGES: Readonly<Record<OwnerGone, string>> = {
  owner_deleted:
    'The person this agent acted for was deleted, so it no longer runs; its open questions expired.',
  owner_removed:
    'The person this agent acted for was removed from this workspace, so it no longer runs; its open questions expired.',
};

/** Ends each session in turn; one that fails to end is logged, and the others still end. */
export async function endSessionsActedFor(
  deps: TurnsDeps,
  sessionIds: readonly string[],
  why: OwnerGone,
): Promise<void> {
  for (const sessionId of sessionIds) {
    try {
      await endSession(deps, sessionId, why);
    } catch (error) {
      // Not stranded for good: its agent's next start is refused, which fails it then.
      deps.logger.error(
        { err: error, sessionId, why },
        'ending a session whose person is gone failed',
      );
    }
  }
}

async function endSession(deps: TurnsDeps, sessionId: string, why: OwnerGone): Promise<void> {
  await confirmLease(deps, sessionId);
  const here = deps.host.isStarted(sessionId);
  const failed = await deps.sessions.write(sessionId, async (write) => {
    const moved = await failSession(write.tx, sessionId, LIVE_SESSION_STATES, {
      code: why,
      message: OWNER_GONE_MESSAGES[why],
    });
    write.moved(moved);
    if (moved && !here) await deps.leases?.tellHolder(write.tx, sessionId, 'stop');
    return moved !== undefined;
  });
  if (!failed) return;
  // Before the stop: its agent's wait ends with the question expired, never with it still open.
  await deps.clarification.expireSession(sessionId, why);
  if (here) await deps.host.stop(sessionId);
}
