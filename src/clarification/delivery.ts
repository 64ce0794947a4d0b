/**
 * Delivery of a claimed response (DESIGN §5.1 step 4), within its own budget
 * and owned by the server: nothing here listens to the HTTP caller.
 *
 * - Live waiter: the intent is durably cleared, then the agent gets the answer.
 * - Detached rejection: recorded, no resume.
 * - Detached answer: reserve a successor turn, check the runtime can take a
 *   prompt (a refusal here sent nothing, so the claim is restored), durably
 *   mark the turn attempted, then dispatch. After the mark the answer stays
 *   terminal whatever happens: a prompt is never sent twice.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/runtime.js';
import { failpoint } from '../support/failpoints.js';
import {
  clearDeliveryIntent,
  deleteUnattemptedReservation,
  getSession,
  markDispatchAttempted,
  publishReservedTurn,
  reserveSuccessorTurn,
  restoreClaim,
  transitionSession,
  type MessageRecord,
} from '../store/index.js';
import type { Bundle } from './bundle.js';
import { EXHAUSTED, startBudget, withinBudget } from './budget.js';
import type { ClarificationDeps } from './context.js';
import type { ClarificationResponse, Decision } from './outcome.js';
import type { RespondResult } from './resolver.js';
import { resumePrompt } from './resume-prompt.js';

export interface Delivered {
  result: RespondResult;
  /** Phase-record outcome. */
  outcome: string;
}

function responseOf(
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
): ClarificationResponse {
  const respondedAt = claimed[0]?.metadata.responded_at;
  return {
    pending_id: bundle.pendingId,
    answers: decision.answers,
    rejected: decision.status === 'rejected',
    reject_reason: decision.reject_reason,
    responded_at: typeof respondedAt === 'string' ? respondedAt : (claimed[0]?.updated_at ?? ''),
  };
}

export async function deliverClaim(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
): Promise<Delivered> {
  const delivered = await deliverOnce(deps, bundle, decision, claimed);
  if (delivered.result.ok) deps.decisions?.decided(bundle.pendingId);
  return delivered;
}

async function deliverOnce(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
): Promise<Delivered> {
  const response = responseOf(bundle, decision, claimed);
  const success: RespondResult = { ok: true, claimed: true, status: decision.status, response };
  const ids = claimed.map((row) => row.id);

  const live = await deps.waiters.deliver(bundle.pendingId, response, () =>
    finalize(deps, bundle.sessionId, ids),
  );
  if (live.kind === 'delivered') return { result: success, outcome: 'live' };
  if (live.kind === 'confirm_failed') {
    deps.logger.error({ err: live.error, pending_id: bundle.pendingId }, 'live delivery failed');
    return restore(deps, bundle, decision, ids);
  }
  if (decision.status === 'rejected') {
    await finalize(deps, bundle.sessionId, ids);
    return { result: success, outcome: 'detached_rejected' };
  }
  const session = await getSession(deps.store, bundle.sessionId);
  if (session?.agent_profile === EXTERNAL_AGENT_PROFILE) {
    // No process to resume: the answer is recorded for the agent to collect.
    await finalize(deps, bundle.sessionId, ids);
    return { result: success, outcome: 'recorded' };
  }
  return resume(deps, bundle, decision, ids, success);
}

/** Clears the intent: the hand-off is confirmed. The session runs again. */
async function finalize(deps: ClarificationDeps, sessionId: string, ids: string[]): Promise<void> {
  await deps.sessions.write(sessionId, async (write) => {
    write.updated(...(await clearDeliveryIntent(write.tx, ids)));
    write.moved(await transitionSession(write.tx, sessionId, ['waiting_for_input'], 'running'));
  });
}

/**
 * Puts the claim back to pending so a retry can claim again. When the bundle
 * moved on meanwhile, the answer is kept as history and only its intent goes.
 */
async function restore(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  ids: string[],
): Promise<Delivered> {
  await deps.sessions.write(bundle.sessionId, async (write) => {
    const restored = await restoreClaim(write.tx, ids, decision.status, {
      detached: !deps.waiters.has(bundle.pendingId),
    });
    write.updated(...(restored ?? (await clearDeliveryIntent(write.tx, ids))));
  });
  return {
    result: {
      ok: false,
      code: 'internal',
      message: 'clarification response could not be delivered',
    },
    outcome: 'restored',
  };
}

async function resume(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  ids: string[],
  success: RespondResult,
): Promise<Delivered> {
  const { store, runtime } = deps;
  const turn = await deps.sessions.write(bundle.sessionId, ({ tx }) =>
    reserveSuccessorTurn(tx, {
      sessionId: bundle.sessionId,
      taskId: bundle.taskId,
      recovery: {
        pendingId: bundle.pendingId,
        clarificationTurnId: bundle.turnId,
        messageIds: ids,
      },
    }),
  );
  failpoint('dispatch.after_reservation');

  const readiness = await runtime.prepare(bundle.sessionId);
  if (!readiness.ready) {
    deps.logger.warn(
      { pending_id: bundle.pendingId, reason: readiness.reason },
      'agent cannot take the answer now',
    );
    await deps.sessions.write(bundle.sessionId, ({ tx }) =>
      deleteUnattemptedReservation(tx, turn.id),
    );
    return restore(deps, bundle, decision, ids);
  }

  await deps.sessions.write(bundle.sessionId, ({ tx }) => markDispatchAttempted(tx, turn.id));
  failpoint('dispatch.after_attempted_mark');

  const budget = startBudget(deps.budgets.deliveryMs, store.clock, deps.timers);
  let accepted = false;
  try {
    const sent = await withinBudget(
      budget,
      runtime.prompt({
        sessionId: bundle.sessionId,
        turnId: turn.id,
        text: resumePrompt(bundle.questions, decision.answers),
        signal: budget.signal,
      }),
    );
    accepted = sent !== EXHAUSTED;
  } catch (error) {
    deps.logger.error({ err: error, pending_id: bundle.pendingId }, 'resume prompt failed');
  } finally {
    budget.dispose();
  }
  if (accepted) failpoint('dispatch.after_prompt');

  // Past the attempted mark the answer stays terminal either way; only the outcome differs.
  await deps.sessions.write(bundle.sessionId, async (write) => {
    await publishReservedTurn(write.tx, turn.id);
    write.updated(...(await clearDeliveryIntent(write.tx, ids)));
    if (accepted) {
      write.moved(
        await transitionSession(
          write.tx,
          bundle.sessionId,
          ['waiting_for_input', 'idle'],
          'running',
        ),
      );
    }
  });
  if (accepted) return { result: success, outcome: 'resumed' };
  return {
    result: {
      ok: false,
      code: 'internal',
      message: 'the answer was recorded, but the agent did not confirm it received it',
    },
    outcome: 'dispatch_unconfirmed',
  };
}
