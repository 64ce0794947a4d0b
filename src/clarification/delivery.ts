/**
 * The delivery runner (DESIGN §5.1 step 4): the only place a claimed
 * response's delivery has effects. `delivery-plan.ts` decides each step from
 * what is known; this performs it, records the result as a fact and asks for
 * the next one. Delivery has its own budget and is owned by the server:
 * nothing here listens to the HTTP caller.
 *
 * Every database step is one session write; the successor turn's steps are
 * `turns/`'s, reached through the `SuccessorTurns` port. Failpoints sit just
 * after the commits they name (the kill-point suite stops the server there).
 */
import { EXTERNAL_AGENT_PROFILE, type Readiness } from '../agents/index.js';
import { DELIVERY_PROMPT_RESERVE_MS } from '../tunables.js';
import { failpoint } from '../support/index.js';
import {
  clearDeliveryIntent,
  getSession,
  messagesByPendingId,
  restoreClaim,
  type MessageRecord,
  type TurnRecord,
} from '../store/index.js';
import { readBundle, readResponder, winnerResponse, type Bundle } from './bundle.js';
import { EXHAUSTED, startBudget, withinBudget, type Budget } from '../support/index.js';
import type { ClarificationDeps } from './context.js';
import {
  deliveryVerdict,
  nextDeliveryStep,
  type DeliveryFacts,
  type DeliveryOutcome,
} from './delivery-plan.js';
import { awaitDeliveryElsewhere, routeClaim } from './delivery-elsewhere.js';
import { ClaimTakenBack, clearClaimIntent } from './claim-intent.js';
import type { ClarificationResponse, Decision } from './outcome.js';
import type { RespondResult } from './resolver.js';
import { resumePrompt } from './resume-prompt.js';
import { failure } from '../wire/index.js';

export interface Delivered {
  result: RespondResult;
  /** Phase-record outcome. */
  outcome: DeliveryOutcome;
}

/** A plan is a handful of steps; more means the plan stopped making progress. */
const MAX_DELIVERY_STEPS = 16;

function responseOf(
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
): ClarificationResponse {
  const respondedAt = claimed[0]?.metadata.responded_at;
  return {
    responded_by: readResponder(claimed[0]?.metadata.responded_by) ?? null,
    pending_id: bundle.pendingId,
    answers: decision.answers,
    rejected: decision.status === 'rejected',
    reject_reason: decision.reject_reason,
    responded_at: typeof respondedAt === 'string' ? respondedAt : (claimed[0]?.updated_at ?? ''),
  };
}

function resultOf(outcome: DeliveryOutcome, success: RespondResult): RespondResult {
  const verdict = deliveryVerdict(outcome);
  switch (verdict) {
    case 'delivered':
      return success;
    case 'not_delivered':
      return failure('internal', 'clarification response could not be delivered');
    case 'unconfirmed':
      return failure(
        'internal',
        'the answer was recorded, but the agent did not confirm it received it',
      );
    default:
      return assertNever(verdict);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled delivery step: ${JSON.stringify(value)}`);
}

/** What the responder learned by the time its claim committed, so delivery need not read it again. */
export interface KnownAtClaim {
  /** The claim's commit announced it to the replica that delivers it. */
  readonly announced: boolean;
  /** The session's agent is external (the identity read brings the session's profile). */
  readonly external?: boolean;
}

/** Delivers a claim this replica made. */
export async function deliverClaim(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
  known: KnownAtClaim,
): Promise<Delivered> {
  const response = responseOf(bundle, decision, claimed);
  const { replicas, waiters } = deps;
  await confirmWaiterHere(deps, bundle);
  // Several replicas: the claim itself may have taken the delivery here (`routeBeforeClaim`).
  const takenHere = claimed.every((row) => row.metadata.delivery_by === replicas?.id);
  let outcome: DeliveryOutcome;
  if (!replicas || takenHere || waiters.has(bundle.pendingId)) {
    outcome = await run(deps, bundle, decision, claimed, response, known.external);
  } else {
    const ids = claimed.map((row) => row.id);
    const routed = await routeClaim(deps, replicas, bundle, ids, {
      origin: replicas.id,
      waiterHere: false,
      announce: !known.announced,
    });
    outcome =
      routed === 'here'
        ? await run(deps, bundle, decision, claimed, response, known.external)
        : await awaitDeliveryElsewhere(deps, replicas, bundle, ids);
  }
  const result = resultOf(outcome, {
    ok: true,
    claimed: true,
    status: decision.status,
    response,
  });
  if (result.ok) deps.decisions?.decided(bundle.pendingId);
  return { result, outcome };
}

/**
 * Several replicas: a claim of `pendingId` that `origin` announced (or a
 * poll found waiting) is delivered here when its route says so. Nobody waits
 * on the outcome here; the responder reads it from the store. A bundle
 * cancelled elsewhere ends its wait here.
 */
export async function deliverAnnounced(
  deps: ClarificationDeps,
  pendingId: string,
  origin: string,
): Promise<DeliveryOutcome | undefined> {
  const { replicas } = deps;
  if (!replicas) return undefined;
  const rows = await messagesByPendingId(deps.store, pendingId);
  const read = readBundle(pendingId, rows);
  if (!read.ok) return undefined;
  const { bundle } = read;
  // `readBundle` keeps the rows' order.
  const claimed = rows.filter((_, index) => bundle.rows[index]?.deliveryPending === true);
  // A person cancelled it on another replica: the wait held here ends as a local cancel would.
  if (bundle.rows.every((row) => row.status === 'cancelled')) {
    deps.waiters.end(pendingId, 'cancelled');
    return undefined;
  }
  const winner = winnerResponse(bundle);
  if (!winner || claimed.length === 0) return undefined;
  await confirmWaiterHere(deps, bundle);
  const routed = await routeClaim(
    deps,
    replicas,
    bundle,
    claimed.map((row) => row.id),
    { origin, waiterHere: deps.waiters.has(pendingId), announce: false },
  );
  if (routed === 'elsewhere') return undefined;
  const decision: Decision = {
    status: winner.rejected ? 'rejected' : 'answered',
    answers: winner.answers,
    reject_reason: winner.reject_reason,
  };
  const outcome = await run(deps, bundle, decision, claimed, responseOf(bundle, decision, claimed));
  if (deliveryVerdict(outcome) === 'delivered') deps.decisions?.decided(pendingId);
  return outcome;
}

/** A wait held here for a session this replica lost while it did not run is ended first. */
async function confirmWaiterHere(deps: ClarificationDeps, bundle: Bundle): Promise<void> {
  if (deps.leases && deps.waiters.has(bundle.pendingId)) {
    await deps.leases.confirm(bundle.sessionId);
  }
}

async function run(
  deps: ClarificationDeps,
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
  response: ClarificationResponse,
  external?: boolean,
): Promise<DeliveryOutcome> {
  const { clock } = deps.store;
  const startedAtMs = clock.nowMs();
  let budget: Budget | undefined;
  // Counted from the delivery's start, but made only by a step that waits on the agent.
  const deliveryBudget = () =>
    (budget ??= startBudget(
      Math.max(0, deps.budgets.deliveryMs - (clock.nowMs() - startedAtMs)),
      clock,
      deps.timers,
    ));
  try {
    return await runWithin(deps, deliveryBudget, bundle, decision, claimed, response, external);
  } finally {
    budget?.dispose();
  }
}

/** The steps of one delivery, all within the one delivery budget (DESIGN §5.1). */
async function runWithin(
  deps: ClarificationDeps,
  budget: () => Budget,
  bundle: Bundle,
  decision: Decision,
  claimed: MessageRecord[],
  response: ClarificationResponse,
  external?: boolean,
): Promise<DeliveryOutcome> {
  const { sessions, successors, waiters } = deps;
  const { sessionId, pendingId } = bundle;
  const ids = claimed.map((row) => row.id);
  const facts: DeliveryFacts = {
    decision: decision.status,
    liveWaiter: waiters.has(pendingId),
    // Known from the identity read, the plan skips its `readSession` step.
    ...(external === undefined ? {} : { external }),
  };
  let turn: TurnRecord | undefined;
  const successor = (): TurnRecord => {
    if (!turn) throw new Error('no successor turn was reserved');
    return turn;
  };

  /** False, with nothing changed, when a recovery put the claim back or retired it (`claim-intent.ts`). */
  const clearIntent = (forCollection = false): Promise<boolean> =>
    clearClaimIntent(sessions, { sessionId, pendingId, ids, forCollection });
  /**
   * The live hand-off's confirmation: refused when the claim was taken back,
   * so the agent never gets an answer the bundle does not hold, which a
   * second person could then win.
   */
  const confirmHandOff = async () => {
    if (!(await clearIntent())) throw new ClaimTakenBack(pendingId);
  };

  for (let steps = 0; steps < MAX_DELIVERY_STEPS; steps++) {
    const step = nextDeliveryStep(facts);
    switch (step.kind) {
      case 'handToLiveWaiter': {
        const live = await waiters.deliver(pendingId, response, confirmHandOff);
        if (live.kind === 'confirm_failed') {
          deps.logger.error({ err: live.error, pending_id: pendingId }, 'live delivery failed');
        }
        facts.liveHandOff = live.kind;
        // The agent holds the answer and the intent is gone; its turn has not ended yet.
        if (live.kind === 'delivered') failpoint('delivery.after_live_hand_off');
        break;
      }
      case 'readSession': {
        const session = await getSession(deps.store, sessionId);
        facts.external = session?.agent_profile === EXTERNAL_AGENT_PROFILE;
        break;
      }
      case 'clearIntent':
        facts.intentClear = (await clearIntent(facts.external === true)) ? 'cleared' : 'taken_back';
        break;
      case 'reserveSuccessorTurn':
        turn = await sessions.write(sessionId, (write) =>
          successors.reserve(write, {
            taskId: bundle.taskId,
            recovery: { pendingId, clarificationTurnId: bundle.turnId, messageIds: ids },
          }),
        );
        facts.reserved = true;
        failpoint('dispatch.after_reservation');
        break;
      case 'checkReadiness': {
        const readiness = await readyWithin(deps, sessionId, budget());
        if (!readiness.ready) {
          deps.logger.warn(
            { pending_id: pendingId, reason: readiness.reason },
            'agent cannot take the answer now',
          );
        }
        facts.readiness = readiness.ready ? 'ready' : 'refused';
        break;
      }
      case 'releaseAndRestore':
      case 'restore': {
        const reserved = step.kind === 'releaseAndRestore' ? successor() : undefined;
        const restored = await sessions.write(sessionId, async (write) => {
          if (reserved) await successors.release(write, reserved.id);
          const rows = await restoreClaim(write.tx, ids, decision.status, {
            detached: !waiters.has(pendingId),
          });
          write.updated(...(rows ?? []));
          return rows !== undefined;
        });
        facts.restore = restored ? 'restored' : 'moved_on';
        break;
      }
      case 'retire':
        await sessions.write(sessionId, async (write) => {
          write.updated(...(await clearDeliveryIntent(write.tx, ids)));
        });
        facts.retired = true;
        break;
      case 'markAttempted': {
        const reserved = successor();
        const marked = await sessions.write(sessionId, (write) =>
          successors.markAttempted(write, reserved.id),
        );
        facts.attemptMark = marked ? 'marked' : 'missing';
        if (marked) {
          failpoint('dispatch.after_attempted_mark');
          // The successor is the current turn now: waits on the session's older bundles end.
          deps.newerTurn?.(sessionId);
        }
        break;
      }
      case 'dispatch':
        facts.dispatch = await dispatchWithinBudget(deps, budget(), bundle, decision, successor());
        if (facts.dispatch === 'accepted') failpoint('dispatch.after_prompt');
        break;
      case 'settleSuccessor': {
        const reserved = successor();
        await sessions.write(sessionId, async (write) => {
          await successors.settle(write, reserved.id, step.accepted);
          write.updated(...(await clearDeliveryIntent(write.tx, ids)));
        });
        facts.settled = true;
        break;
      }
      case 'done':
        return step.outcome;
      default:
        return assertNever(step);
    }
  }
  throw new Error(`delivery of ${pendingId} did not finish in ${MAX_DELIVERY_STEPS} steps`);
}

/**
 * The agent's readiness, given the delivery budget less what the resume
 * prompt keeps for itself; an agent not ready by then is not ready (its
 * start goes on, for the retry).
 */
async function readyWithin(
  deps: ClarificationDeps,
  sessionId: string,
  budget: Budget,
): Promise<Readiness> {
  const reserveMs = Math.min(DELIVERY_PROMPT_RESERVE_MS, deps.budgets.deliveryMs / 3);
  const bound = startBudget(
    Math.max(0, budget.remainingMs() - reserveMs),
    deps.store.clock,
    deps.timers,
  );
  try {
    // Already spent (`withinBudget` throws then): as exhausted.
    const readiness = await withinBudget(bound, deps.successors.readiness(sessionId)).catch(
      (): typeof EXHAUSTED => EXHAUSTED,
    );
    return readiness === EXHAUSTED
      ? { ready: false, reason: 'the agent was not ready within the delivery budget' }
      : readiness;
  } finally {
    bound.dispose();
  }
}

/** The resume prompt, within what is left of the delivery budget. */
async function dispatchWithinBudget(
  deps: ClarificationDeps,
  budget: Budget,
  bundle: Bundle,
  decision: Decision,
  turn: TurnRecord,
): Promise<'accepted' | 'unconfirmed'> {
  try {
    const sent = await withinBudget(
      budget,
      deps.successors.dispatch({
        sessionId: bundle.sessionId,
        turnId: turn.id,
        text: resumePrompt(bundle.questions, decision.answers),
        signal: budget.signal,
      }),
    );
    return sent === EXHAUSTED ? 'unconfirmed' : 'accepted';
  } catch (error) {
    deps.logger.error({ err: error, pending_id: bundle.pendingId }, 'resume prompt failed');
    return 'unconfirmed';
  }
}
