/**
 * The sessions whose agents acted for a person an admin deleted. The
 * person's deletion took their agents' tokens with it, and no agent starts
 * for a task without its creator (`ensureAgent`), so nothing asked there
 * could reach its agent again: left alone, its questions would wait for a
 * person forever while its agent had already given up on them. Each such
 * session fails saying why (`owner_deleted`), which expires its open
 * questions for everyone who sees them and ends the waits on them, and its
 * agent is stopped (here, or by the lease holder, told in the same write).
 */
import { failSession } from '../store/index.js';
import { LIVE_SESSION_STATES } from '../wire/index.js';
import type { TurnsDeps } from './context.js';
import { confirmLease } from './fencing.js';

export const OWNER_DELETED_MESSAGE =
  'The person this agent acted for was deleted, so it no longer runs; its open questions expired.';

/** Ends each session in turn; one that fails to end is logged, and the others still end. */
export async function endSessionsActedFor(
  deps: TurnsDeps,
  sessionIds: readonly string[],
): Promise<void> {
  for (const sessionId of sessionIds) {
    try {
      await endSession(deps, sessionId);
    } catch (error) {
      // Not stranded for good: its agent's next start is refused, which fails it then.
      deps.logger.error(
        { err: error, sessionId },
        'ending a session whose person was deleted failed',
      );
    }
  }
}

async function endSession(deps: TurnsDeps, sessionId: string): Promise<void> {
  await confirmLease(deps, sessionId);
  const here = deps.host.isStarted(sessionId);
  const failed = await deps.sessions.write(sessionId, async (write) => {
    const moved = await failSession(write.tx, sessionId, LIVE_SESSION_STATES, {
      code: 'owner_deleted',
      message: OWNER_DELETED_MESSAGE,
    });
    write.moved(moved);
    if (moved && !here) await deps.leases?.tellHolder(write.tx, sessionId, 'stop');
    return moved !== undefined;
  });
  if (!failed) return;
  // Before the stop: its agent's wait ends with the question expired, never with it still open.
  await deps.clarification.expireSession(sessionId, 'owner_deleted');
  if (here) await deps.host.stop(sessionId);
}
