/**
 * Several replicas (issue 16): an external agent's question whose live wait
 * ran on a replica that died. Its session holds no lease, so no takeover
 * recovers it, and its rows would read attached (a live waiter said to
 * exist) until some replica's start-up recovery. Each poll of the delivery
 * wakes detaches it instead, as a wait that ends on a healthy replica does:
 * the same rows flag, in a session write, so the same `message.updated`
 * events; an answer given afterwards is recorded for the agent to collect
 * on any replica.
 *
 * At most once: the write detaches only rows still attached whose replica is
 * still gone, under the session's lock, so replicas polling together publish
 * one set of events between them, and an ask repeated meanwhile on a live
 * replica keeps its wait.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import { detachOrphanedAsk, orphanedAsks } from '../store/index.js';
import type { ClarificationDeps } from './context.js';

/**
 * Detaches the external agents' bundles whose wait ran on a replica not live
 * as of `heartbeatAfter`; this replica's own waits are left to end here.
 * Returns how many bundles it detached.
 */
export async function detachOrphanedAsks(
  deps: Pick<ClarificationDeps, 'store' | 'sessions' | 'waiters' | 'logger'>,
  here: string,
  heartbeatAfter: string,
): Promise<number> {
  let detached = 0;
  for (const ask of await orphanedAsks(deps.store, heartbeatAfter, EXTERNAL_AGENT_PROFILE)) {
    // This replica runs: a late heartbeat of its own is no wait that ended.
    if (ask.askedOn === here || deps.waiters.has(ask.pendingId)) continue;
    const rows = await deps.sessions.write(ask.sessionId, async (write) => {
      const updated = await detachOrphanedAsk(write.tx, ask.pendingId, heartbeatAfter);
      write.updated(...updated);
      return updated;
    });
    if (rows.length === 0) continue;
    detached++;
    deps.logger.info(
      { pending_id: ask.pendingId, asked_on: ask.askedOn },
      'detached an external question whose replica is gone',
    );
  }
  return detached;
}
