/**
 * Messages queued through another replica (issue 16). A replica that cannot
 * take a session's lease leaves the message in the store's queue and wakes
 * the holder; the holder runs it as its own turn's end would. The wake bus's
 * poll does the same for every session this replica holds, so a lost wake
 * delays the message by at most one poll.
 */
import type { WakeSubscriber } from '../cluster/index.js';
import { idleSessionsWithQueue } from '../store/index.js';
import { startNextQueued } from './admission.js';
import type { TurnsDeps } from './context.js';

export function queueWakes(deps: TurnsDeps, replicaId: string): WakeSubscriber {
  const run = (sessionId: string) =>
    startNextQueued(deps, sessionId).catch((error: unknown) => {
      deps.logger.warn({ err: error, session_id: sessionId }, 'a queue woken elsewhere failed');
    });
  return {
    kinds: ['queue'],
    wake({ topic }) {
      // Only where the agent runs: anywhere else the start would only find the lease taken.
      if (topic.kind === 'queue' && deps.host.isStarted(topic.sessionId)) void run(topic.sessionId);
    },
    async resync() {
      const held = await idleSessionsWithQueue(deps.store, { kind: 'held_by', replicaId });
      for (const sessionId of held) {
        if (deps.host.isStarted(sessionId)) await run(sessionId);
      }
    },
  };
}
