/**
 * Delivery of a claimed response as a plan (DESIGN §5.1 step 4), pure: no
 * I/O, no clock. `nextDeliveryStep` takes what the runner (`delivery.ts`) has
 * learned so far about one claimed bundle and returns the next step as data;
 * the runner performs it, records its result as a fact and asks again, until
 * the step is `done`.
 *
 * The cases:
 * - Live waiter: it durably clears the intent, then the agent gets the answer.
 *   A failed clear restores the claim.
 * - Detached rejection: persisted (intent cleared), no resume; an external
 *   agent's is kept for it to collect, as its answer is.
 * - External session: no process to resume; recorded for the agent to collect.
 * - Either of those two finds its claim taken back by a recovery meanwhile:
 *   nothing is recorded, and the responder hears it was not delivered.
 * - Detached answer: reserve an unpublished successor turn, check the runtime
 *   can take a prompt, durably mark the turn attempted (the at-most-once
 *   boundary), dispatch, then settle the turn (published; the session runs on
 *   acceptance) and clear the intent. A refusal before the mark releases the
 *   reservation and restores the claim to pending (retryable); past the mark
 *   the answer stays terminal whatever the dispatch did.
 * - Restore finds the bundle moved on (no longer current): the answer stays
 *   as history and only the intent is dropped (`retire`).
 *
 * Invariant: `dispatch` is planned only after `attemptMark` is `marked`, and
 * no step after it puts the claim back.
 */

/** What the runner knows about one delivery; a field is absent until learned. */
export interface DeliveryFacts {
  decision: 'answered' | 'rejected';
  /** A live waiter held the bundle when delivery began. */
  liveWaiter: boolean;
  /** What handing the response to the live waiter gave (`no_waiter`: it left meanwhile). */
  liveHandOff?: 'delivered' | 'confirm_failed' | 'no_waiter';
  /** The session's agent is external: nothing Clarion can resume. */
  external?: boolean;
  /** A successor turn is reserved, unpublished. */
  reserved?: boolean;
  readiness?: 'ready' | 'refused';
  /** `missing`: the reservation was gone when it was to be marked; nothing was sent. */
  attemptMark?: 'marked' | 'missing';
  dispatch?: 'accepted' | 'unconfirmed';
  /** The successor turn is settled and the intent cleared. */
  settled?: boolean;
  /**
   * Clearing the intent without a successor turn (rejection, external).
   * `taken_back`: a recovery put the claim back or retired it first, so
   * nothing was recorded for the agent.
   */
  intentClear?: 'cleared' | 'taken_back';
  /** What putting the claim back found: `moved_on` means the bundle is no longer current. */
  restore?: 'restored' | 'moved_on';
  /** The intent of a bundle that moved on is dropped. */
  retired?: boolean;
}

export type DeliveryOutcome =
  | 'live'
  | 'detached_rejected'
  | 'recorded'
  | 'resumed'
  | 'dispatch_unconfirmed'
  | 'restored'
  /** A recovery put the claim back (or retired it) before its intent was cleared here. */
  | 'taken_back'
  /** Another replica delivered it (several replicas, `delivery-elsewhere.ts`). */
  | 'elsewhere'
  /** Another replica was to deliver it and had not when the budget ran out. */
  | 'elsewhere_unconfirmed';

export type DeliveryStep =
  /** Hand the response to the live waiter; its confirmation durably clears the intent first. */
  | { kind: 'handToLiveWaiter' }
  /** Read whether the session's agent is external. */
  | { kind: 'readSession' }
  /** Clear the intent; a session waiting for input runs again. */
  | { kind: 'clearIntent' }
  /** Reserve the successor turn (unpublished) that will carry the answer. */
  | { kind: 'reserveSuccessorTurn' }
  /** Ask the runtime whether the agent can take a prompt; sends nothing. */
  | { kind: 'checkReadiness' }
  /** In one write: drop the unattempted reservation and put the claim back to pending. */
  | { kind: 'releaseAndRestore' }
  /** Put the claim back to pending (nothing reached the agent). */
  | { kind: 'restore' }
  /** The bundle moved on: keep the answer as history, drop the intent. */
  | { kind: 'retire' }
  /** Durably mark the successor turn attempted: the at-most-once boundary. */
  | { kind: 'markAttempted' }
  /** Send the resume prompt within the delivery budget. */
  | { kind: 'dispatch' }
  /** Publish the successor turn (the session runs when `accepted`) and clear the intent. */
  | { kind: 'settleSuccessor'; accepted: boolean }
  | { kind: 'done'; outcome: DeliveryOutcome };

/** How a delivery ends for the responder. */
export type DeliveryVerdict = 'delivered' | 'not_delivered' | 'unconfirmed';

export function nextDeliveryStep(facts: DeliveryFacts): DeliveryStep {
  if (facts.liveWaiter && facts.liveHandOff === undefined) return { kind: 'handToLiveWaiter' };
  if (facts.liveHandOff === 'delivered') return { kind: 'done', outcome: 'live' };
  if (facts.liveHandOff === 'confirm_failed') return putBack(facts, { kind: 'restore' });

  // Detached: no live waiter, or it left before the hand-off. An external agent's rejection is
  // kept for it to collect as its answer is, so whose session it is must be known first.
  if (facts.external === undefined) return { kind: 'readSession' };
  if (facts.decision === 'rejected') return clearIntent(facts, 'detached_rejected');
  if (facts.external) return clearIntent(facts, 'recorded');

  // Past the attempted mark the answer stays terminal whatever happens, so this comes first.
  if (facts.attemptMark === 'marked') {
    if (facts.dispatch === undefined) return { kind: 'dispatch' };
    const accepted = facts.dispatch === 'accepted';
    if (facts.settled !== true) return { kind: 'settleSuccessor', accepted };
    return { kind: 'done', outcome: accepted ? 'resumed' : 'dispatch_unconfirmed' };
  }
  if (facts.reserved !== true) return { kind: 'reserveSuccessorTurn' };
  if (facts.readiness === undefined) return { kind: 'checkReadiness' };
  if (facts.readiness === 'refused') return putBack(facts, { kind: 'releaseAndRestore' });
  if (facts.attemptMark === undefined) return { kind: 'markAttempted' };
  // The reservation was gone at the mark: nothing was sent.
  return putBack(facts, { kind: 'restore' });
}

function clearIntent(facts: DeliveryFacts, outcome: DeliveryOutcome): DeliveryStep {
  switch (facts.intentClear) {
    case undefined:
      return { kind: 'clearIntent' };
    case 'cleared':
      return { kind: 'done', outcome };
    case 'taken_back':
      return { kind: 'done', outcome: 'taken_back' };
    default:
      return assertNever(facts.intentClear);
  }
}

/** Nothing reached the agent: the claim goes back to pending, or retires if the bundle moved on. */
function putBack(
  facts: DeliveryFacts,
  first: { kind: 'restore' } | { kind: 'releaseAndRestore' },
): DeliveryStep {
  if (facts.restore === undefined) return first;
  if (facts.restore === 'moved_on' && facts.retired !== true) return { kind: 'retire' };
  return { kind: 'done', outcome: 'restored' };
}

export function deliveryVerdict(outcome: DeliveryOutcome): DeliveryVerdict {
  switch (outcome) {
    case 'live':
    case 'detached_rejected':
    case 'recorded':
    case 'resumed':
    case 'elsewhere':
      return 'delivered';
    case 'restored':
    case 'taken_back':
      return 'not_delivered';
    case 'dispatch_unconfirmed':
    case 'elsewhere_unconfirmed':
      return 'unconfirmed';
    default:
      return assertNever(outcome);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled delivery case: ${JSON.stringify(value)}`);
}
