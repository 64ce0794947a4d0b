/**
 * Fencing (issue 16): this replica was not running (SIGSTOP, a long GC pause,
 * a frozen VM) past its lease, and another replica took the session over and
 * ran start-up recovery for it. The rows are the other replica's now, so what
 * still runs here for the session ends without writing anything: its live
 * waits (the agent's call is cut), its registry requests (dropped from
 * memory), its idle deadline, and its agent process (through the host's
 * bounded stop; the event pump drops what that agent still reports).
 */
import type { AgentLaunchDeps, TurnsDeps } from './context.js';

export async function fenceSessions(deps: TurnsDeps, sessionIds: readonly string[]) {
  await Promise.all(
    sessionIds.map(async (sessionId) => {
      deps.idleStops.forget(sessionId);
      // Waits first: a wait cut by its agent's exit would detach the bundle, a write.
      deps.clarification.fenceSession(sessionId);
      deps.userInputs.forgetSession(sessionId);
      if (!deps.host.isStarted(sessionId)) return;
      await deps.host.stop(sessionId).catch((error: unknown) => {
        deps.logger.warn({ err: error, session_id: sessionId }, 'stopping a fenced agent failed');
      });
    }),
  );
}

/**
 * Before deciding from `host.isStarted` whether the session's agent runs
 * here: a lease lost while this replica did not run is fenced first, so the
 * answer is "not here" and the caller takes its path for another replica.
 */
export async function confirmLease(
  deps: Pick<AgentLaunchDeps, 'host' | 'leases'>,
  sessionId: string,
): Promise<void> {
  if (deps.leases && deps.host.isStarted(sessionId)) await deps.leases.confirm(sessionId);
}
