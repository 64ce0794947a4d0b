/**
 * What another replica asks of the one running a session's agent (issue 16).
 * Only the lease holder starts, prompts or stops an agent, so a replica that
 * cannot leaves the work in the store or wakes the holder:
 * - `queue`: a message queued through it; the holder runs it as its own
 *   turn's end would. The wake bus's poll does the same for every session
 *   this replica holds, so a lost wake delays the message by one poll.
 * - `cancel`: a person cancelled the running turn there. The request waits
 *   on the turn's row with who asked, so the poll finds one whose wake was
 *   lost, and the transcript says "Cancelled by …" as for a local cancel.
 * - `stop`: the session was deleted there, or failed for good (its person
 *   was deleted); the agent goes down here. A deleted session's lease row
 *   goes with it, so the next renew fences its agent should the wake be
 *   lost; a failed one keeps its lease, so the poll stops the agent of every
 *   session held here that takes no more turns.
 */
import type { WakeSubscriber } from '../cluster/index.js';
import {
  endedSessions,
  idleSessionsWithQueue,
  sessionsWithCancelRequest,
  takeTurnCancel,
} from '../store/index.js';
import { startNextQueued } from './admission.js';
import type { TurnsDeps } from './context.js';
import { confirmLease } from './fencing.js';

export function holderWakes(deps: TurnsDeps, replicaId: string): WakeSubscriber {
  const run = (sessionId: string) =>
    startNextQueued(deps, sessionId).catch((error: unknown) => {
      deps.logger.warn({ err: error, session_id: sessionId }, 'a queue woken elsewhere failed');
    });
  const settle = (work: Promise<void>, sessionId: string, what: string) =>
    work.catch((error: unknown) => {
      deps.logger.warn({ err: error, session_id: sessionId }, `a ${what} asked elsewhere failed`);
    });
  const stop = async (sessionId: string) => {
    // A lease lost while this replica did not run: its agent here is fenced, not stopped.
    await confirmLease(deps, sessionId);
    if (deps.host.isStarted(sessionId)) await deps.host.stop(sessionId);
  };
  const cancel = async (sessionId: string) => {
    const asked = await takeTurnCancel(deps.store, sessionId);
    if (!asked) return;
    if (asked.by !== undefined) deps.cancellations.noted(sessionId, asked.turnId, asked.by);
    await deps.host.cancel(sessionId);
  };
  return {
    kinds: ['queue', 'cancel', 'stop'],
    wake({ topic }) {
      if (topic.kind !== 'queue' && topic.kind !== 'cancel' && topic.kind !== 'stop') return;
      const { sessionId, kind } = topic;
      // Only where the agent runs: anywhere else there is nothing to act on.
      if (!deps.host.isStarted(sessionId)) return;
      // A lease lost while this replica did not run: its agent here is fenced, not woken.
      void settle(confirmLease(deps, sessionId), sessionId, kind).then(() => {
        if (!deps.host.isStarted(sessionId)) return;
        if (kind === 'queue') void run(sessionId);
        else if (kind === 'cancel') void settle(cancel(sessionId), sessionId, 'cancel');
        else void settle(deps.host.stop(sessionId), sessionId, 'stop');
      });
    },
    async resync() {
      const mine = { kind: 'held_by', replicaId } as const;
      for (const sessionId of await sessionsWithCancelRequest(deps.store, mine)) {
        if (deps.host.isStarted(sessionId)) await settle(cancel(sessionId), sessionId, 'cancel');
      }
      for (const sessionId of await idleSessionsWithQueue(deps.store, mine)) {
        if (deps.host.isStarted(sessionId)) await run(sessionId);
      }
      // Its `stop` wake lost: nothing else ends it, and the idle stop re-arms on a session not idle.
      for (const sessionId of await endedSessions(deps.store, mine)) {
        if (deps.host.isStarted(sessionId)) await settle(stop(sessionId), sessionId, 'stop');
      }
    },
  };
}
