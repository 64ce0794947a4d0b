/**
 * The successor turn a detached answer starts (DESIGN §5.1 step 4), as turn
 * authority sees it: reserved unpublished, checked for readiness, marked
 * attempted immediately before dispatch (the at-most-once boundary),
 * dispatched, then settled as an ordinary turn. Clarification's delivery
 * runner drives these steps through its `SuccessorTurns` port; nothing here
 * decides when.
 *
 * Invariants: every database step runs inside a session write the caller
 * opened (so it shares the caller's lock and revision); a readiness check
 * never sends a prompt, so its refusal — a throw included — means nothing
 * reached the agent.
 */
import type { AgentRuntime, Readiness } from '../agents/index.js';
import type { SuccessorTurns } from '../clarification/index.js';
import {
  deleteUnattemptedReservation,
  markDispatchAttempted,
  publishReservedTurn,
  reserveSuccessorTurn,
  transitionSession,
} from '../store/index.js';

export function createSuccessorTurns(runtime: AgentRuntime): SuccessorTurns {
  return {
    reserve: (write, input) =>
      reserveSuccessorTurn(write.tx, { sessionId: write.sessionId, ...input }),

    async readiness(sessionId): Promise<Readiness> {
      try {
        return await runtime.prepare(sessionId);
      } catch (error) {
        return { ready: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },

    release: (write, turnId) => deleteUnattemptedReservation(write.tx, turnId),

    markAttempted: (write, turnId) => markDispatchAttempted(write.tx, turnId),

    dispatch: (input) => runtime.prompt(input),

    async settle(write, turnId, accepted) {
      await publishReservedTurn(write.tx, turnId);
      if (!accepted) return;
      write.moved(
        await transitionSession(
          write.tx,
          write.sessionId,
          ['waiting_for_input', 'idle'],
          'running',
        ),
      );
    },
  };
}
