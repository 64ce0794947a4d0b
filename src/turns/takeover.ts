/**
 * Takeover (issue 16): when a replica stops heartbeating, another takes its
 * session leases and does for exactly those sessions what start-up recovery
 * does (restore undelivered claims, close the interrupted turns, make the
 * sessions idle, revoke the dead agents' tokens, re-run the queue), and
 * says in each transcript, and to open tabs, that the consent, action and
 * form requests the dead registry held ended unanswered. The
 * lease's conditional take gives each session to one replica, so this runs
 * once per takeover, and again only after it failed part-way: then a session
 * whose agent this replica already started (its queue drained) is left
 * alone, since what runs there now is no longer the dead replica's.
 */
import { revokeAgentTokens } from '../auth/index.js';
import { recoverClarifications } from '../clarification/index.js';
import { transitionSession, type SessionScope } from '../store/index.js';
import { drainQueuesAfterRestart } from './admission.js';
import type { TurnsDeps } from './context.js';
import { endOrphanedUserInputs } from './ended-user-inputs.js';

const INTERRUPTED_STATES = ['starting', 'running', 'waiting_for_input'] as const;

export async function recoverTakenSessions(deps: TurnsDeps, taken: readonly string[]) {
  // Bound under the turns logger's own `component`: a second one would repeat the key.
  const logger = deps.logger.child({ recovery: 'takeover' });
  // Every taken session, those whose agent started here since too: the dead registry's
  // requests ended with it, whatever runs now. Those this registry holds are not its.
  await endOrphanedUserInputs(
    { store: deps.store, sessions: deps.sessions, logger },
    { kind: 'sessions', ids: taken },
    'replica_gone',
    (requestId) => deps.userInputs.get(requestId) !== undefined,
  );
  const sessionIds = taken.filter(
    (sessionId) => !deps.host.isStarted(sessionId) && deps.starts.current(sessionId) === undefined,
  );
  if (sessionIds.length === 0) return;
  const scope: SessionScope = { kind: 'sessions', ids: sessionIds };
  const live = deps.leases ? await deps.leases.liveReplicas() : new Set<string>();
  await recoverClarifications(
    { store: deps.store, sessions: deps.sessions },
    logger,
    scope,
    (_pendingId, rows) => deps.clarification.claimInFlight(rows, live),
    { live, loss: 'replica_gone' },
  );
  // Through the write unit, unlike at start-up: people are watching these sessions now.
  for (const sessionId of sessionIds) {
    await deps.sessions.write(sessionId, async (write) => {
      write.moved(await transitionSession(write.tx, sessionId, INTERRUPTED_STATES, 'idle'));
    });
  }
  for (const sessionId of sessionIds) {
    // An agent this replica started meanwhile (an answer delivered here) keeps its credential;
    // its start already ended the dead agent's.
    const revoke = () => revokeAgentTokens(deps.store, sessionId);
    await (deps.leases ? deps.leases.unlessStarted(sessionId, revoke) : revoke());
  }
  await drainQueuesAfterRestart(deps, scope);
  logger.info({ sessions: sessionIds.length }, 'recovered the sessions of a replica that is gone');
}
