/**
 * The resolver: one response to one bundle, exactly as DESIGN §5.1 orders it.
 *
 * 1. Pre-claim, one budget for identity, authorization, validation and the
 *    claim, less what the request already waited for its credential lookup
 *    (`DecisionCaller.waitedMs`). Running out before the claim commits rolls
 *    it back and yields `temporarily_unavailable`; nothing is delivered.
 * 2. The claim: one statement; concurrent responders, one winner. It claims
 *    only while the responder still belongs to the session's workspace.
 * 3. Losers rebuild the committed winner, or get `not_active`; one removed
 *    from the workspace since its identity read gets `not_found`.
 * 4. Delivery, owned by the server whether or not the caller is still there:
 *    to the live waiter, or by resuming a detached agent with a new turn,
 *    marked attempted just before dispatch (the at-most-once boundary).
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import { responderOf, type Principal, type Responder } from '../auth/index.js';
import { failpoint, pausePoint } from '../support/index.js';
import {
  bundleForPrincipal,
  claimBundle,
  isStorageUnavailable,
  type DeliveryOwners,
  type MessageRecord,
} from '../store/index.js';
import { readBundle, winnerResponse, type Bundle } from './bundle.js';
import {
  BudgetExhausted,
  EXHAUSTED,
  startBudget,
  withinBudget,
  type Budget,
} from '../support/index.js';
import type { ClarificationDeps } from './context.js';
import { deliverClaim, type KnownAtClaim } from './delivery.js';
import { routeBeforeClaim, type ClaimRoute } from './delivery-elsewhere.js';
import { failure, type DecisionSurface, type Failure, type RespondReply } from '../wire/index.js';
import { decide, type Decision, type RespondInput } from './outcome.js';

/** The respond reply of DESIGN §5.1, or a failure from the outcome catalogue. */
export type RespondResult =
  | ({ ok: true } & RespondReply)
  | Failure<
      | 'invalid_request'
      | 'person_required'
      | 'not_found'
      | 'not_active'
      | 'temporarily_unavailable'
      | 'storage_unavailable'
      | 'caller_gone'
      | 'internal'
    >;

const NOT_FOUND = failure('not_found', 'clarification request not found');

/** A person answering through a surface; an agent principal is refused before any read. */
export interface DecisionCaller {
  readonly principal: Principal;
  readonly surface: DecisionSurface;
  /**
   * How long the request already waited for the store before it got here
   * (its credential lookup). A respond's pre-claim budget is the request's
   * one budget, so this counts against it.
   */
  readonly waitedMs?: number;
}

type Identified =
  | {
      ok: true;
      bundle: Bundle;
      decision: Decision;
      external: boolean;
      /** Several replicas: the bundle's delivery owners, judged by the same read. */
      owners: DeliveryOwners | undefined;
    }
  | { ok: false; result: RespondResult; outcome: string };

/**
 * The budget enforced in the database: PostgreSQL's statement timeout, or the
 * store giving up its wait for a lock another connection holds (bounded by
 * the same budget; PostgreSQL's lock timeout reads as `lock_busy` too).
 */
function isDatabaseTimeout(error: unknown): boolean {
  if (isStorageUnavailable(error)) return error.reason === 'lock_busy';
  return (error as { code?: unknown } | null)?.code === '57014';
}

export class Resolver {
  constructor(private readonly deps: ClarificationDeps) {}

  async respond(
    caller: DecisionCaller,
    pendingId: string,
    input: RespondInput,
    callerSignal?: AbortSignal,
  ): Promise<RespondResult> {
    const { principal } = caller;
    const responder = responderOf(principal, caller.surface);
    // Refused before any read: an agent learns nothing, not even whether the ID exists.
    if (!responder) return failure('person_required');
    const { clock } = this.deps.store;
    const budgetMs = Math.max(0, this.deps.budgets.preClaimMs - (caller.waitedMs ?? 0));
    const budget = startBudget(budgetMs, clock, this.deps.timers);
    try {
      let started = clock.nowMs();
      const identity = await this.bounded(budget, this.identify(principal, pendingId, input));
      if (identity === EXHAUSTED) return this.exhausted('identity', pendingId, started);
      this.record('identity', identity.ok ? 'ok' : identity.outcome, pendingId, started);
      if (!identity.ok) return identity.result;
      if (callerSignal?.aborted) return failure('caller_gone');
      // Identified, not yet claimed: a race test removes the person here.
      const paused = pausePoint('respond.before_claim');
      if (paused) await paused;

      started = clock.nowMs();
      const route = await this.bounded(budget, this.claimRoute(identity.bundle, identity.owners));
      if (route === EXHAUSTED) return this.exhausted('claim', pendingId, started);
      const claimWork = this.claim(identity.bundle, identity.decision, responder, budget, route);
      const known: KnownAtClaim = {
        announced: route === 'elsewhere',
        external: identity.external,
      };
      const claimed = await this.bounded(budget, claimWork);
      if (claimed === EXHAUSTED) {
        this.deliverLateCommit(claimWork, identity.bundle, identity.decision, known);
        return this.exhausted('claim', pendingId, started);
      }
      if (claimed.length === 0) {
        this.record('claim', 'lost', pendingId, started);
        return await this.replayWinner(principal, pendingId);
      }
      this.record('claim', 'ok', pendingId, started);
      failpoint('respond.after_claim');

      started = clock.nowMs();
      const delivered = await deliverClaim(
        this.deps,
        identity.bundle,
        identity.decision,
        claimed,
        known,
      );
      this.record('delivery', delivered.outcome, pendingId, started);
      return delivered.result;
    } catch (error) {
      if (isStorageUnavailable(error)) {
        // A full disk or an I/O error: the database rolled back, and a retry may succeed.
        this.deps.logger.error(
          { err: error, reason: error.reason, pending_id: pendingId },
          'clarification response failed: storage unavailable',
        );
        return failure('storage_unavailable');
      }
      this.deps.logger.error(
        { err: error, pending_id: pendingId },
        'clarification response failed',
      );
      return failure('internal', 'clarification response failed');
    } finally {
      budget.dispose();
    }
  }

  /** Identity, authorization inputs and validation reads. Unknown and invisible look the same. */
  private async identify(
    principal: Principal,
    pendingId: string,
    input: RespondInput,
  ): Promise<Identified> {
    const { store } = this.deps;
    // Rows and visibility in one read; no rows and rows not visible look the same.
    // Several replicas: the same read judges where a claim would be delivered.
    const { rows, visible, agentProfile, owners } = await bundleForPrincipal(
      store,
      principal,
      pendingId,
      this.deps.replicas?.ownerTerms(),
    );
    if (!visible) {
      return { ok: false, result: NOT_FOUND, outcome: 'not_found' };
    }
    const read = readBundle(pendingId, rows);
    if (!read.ok) {
      return { ok: false, result: failure('not_active'), outcome: 'malformed' };
    }
    const decision = decide(read.bundle.questions, input);
    if (!decision.ok) {
      return {
        ok: false,
        result: failure('invalid_request', 'invalid clarification response', decision.issues),
        outcome: 'invalid',
      };
    }
    return {
      ok: true,
      bundle: read.bundle,
      decision: decision.decision,
      external: agentProfile === EXTERNAL_AGENT_PROFILE,
      owners,
    };
  }

  /**
   * Several replicas: where the claim will be delivered, so the claim can
   * take the delivery (`here`) or announce it (`elsewhere`). A live wait here
   * is delivered here, and the claim says so: another replica's recovery
   * must see that a live replica is handing it over.
   */
  private async claimRoute(
    bundle: Bundle,
    owners: DeliveryOwners | undefined,
  ): Promise<ClaimRoute> {
    const { replicas, waiters, leases } = this.deps;
    if (!replicas) return 'undecided';
    if (waiters.has(bundle.pendingId)) {
      // A wait held here for a session this replica lost ends first; the claim then goes to its holder.
      if (leases) await leases.confirm(bundle.sessionId);
      if (waiters.has(bundle.pendingId)) return 'here';
    }
    // Already decided: the claim will lose, so racing losers pay no extra read.
    if (bundle.rows.some((row) => row.status !== 'pending')) return 'undecided';
    return routeBeforeClaim(replicas, bundle, owners);
  }

  /**
   * The claim transaction. Its last step checks the budget: past it, the
   * transaction rolls back instead of committing, so a 503 never hides a claim
   * (except in the instant between that check and the commit, which
   * `deliverLateCommit` covers).
   */
  private claim(
    bundle: Bundle,
    decision: Decision,
    responder: Responder,
    budget: Budget,
    route: ClaimRoute,
  ): Promise<MessageRecord[]> {
    const { replicas } = this.deps;
    const deliveryBy = route === 'here' ? replicas?.id : undefined;
    // The claimed rows are not reported: delivery's next write reports them in their
    // handed-off state, and staging here would add statements after the budget check.
    return this.deps.sessions.write(
      bundle.sessionId,
      async ({ tx }) => {
        const rows = await claimBundle(tx, {
          pendingId: bundle.pendingId,
          sessionId: bundle.sessionId,
          turnId: bundle.turnId,
          status: decision.status,
          responses: new Map(decision.answers.map((answer) => [answer.question_id, answer])),
          rejectReason: decision.reject_reason,
          respondedAt: tx.clock.timestamp(),
          respondedBy: responder,
          ...(deliveryBy === undefined ? {} : { deliveryBy }),
        });
        if (route === 'elsewhere' && rows.length > 0) {
          await replicas?.announce(bundle.pendingId, tx);
        }
        budget.check();
        return rows;
      },
      { remainingMs: () => budget.remainingMs(), signal: budget.signal },
    );
  }

  /**
   * A claim that changed nothing: another person's won, the bundle moved on,
   * or the responder no longer belongs to its workspace (removed since their
   * identity read; the claim reads the membership too). Read with the same
   * visibility as the identity read, so that last one learns only what an
   * outsider learns.
   */
  private async replayWinner(principal: Principal, pendingId: string): Promise<RespondResult> {
    const { rows, visible } = await bundleForPrincipal(this.deps.store, principal, pendingId);
    if (!visible) return NOT_FOUND;
    const read = readBundle(pendingId, rows);
    const winner = read.ok ? winnerResponse(read.bundle) : undefined;
    if (!winner) return failure('not_active');
    return {
      ok: true,
      claimed: false,
      status: winner.rejected ? 'rejected' : 'answered',
      response: winner,
    };
  }

  /** Races work against the budget; the budget's own errors count as running out. */
  private async bounded<T>(budget: Budget, work: Promise<T>): Promise<T | typeof EXHAUSTED> {
    try {
      return await withinBudget(budget, work);
    } catch (error) {
      if (error instanceof BudgetExhausted || isDatabaseTimeout(error)) return EXHAUSTED;
      throw error;
    }
  }

  /**
   * A claim that committed after the budget ran out is still delivered by
   * the server. Nobody awaits this, so it must never reject: in a server an
   * unhandled rejection ends the process. A delivery that fails here leaves
   * the claim as a failed delivery in `respond` leaves it, and is logged.
   */
  private deliverLateCommit(
    claimWork: Promise<MessageRecord[]>,
    bundle: Bundle,
    decision: Decision,
    known: KnownAtClaim,
  ): void {
    const pendingId = bundle.pendingId;
    void claimWork.then(
      async (rows) => {
        if (rows.length === 0) return;
        this.deps.logger.warn({ pending_id: pendingId }, 'claim committed past its budget');
        try {
          await deliverClaim(this.deps, bundle, decision, rows, known);
        } catch (error) {
          this.deps.logger.error(
            { err: error, pending_id: pendingId },
            'delivering a claim committed past its budget failed',
          );
        }
      },
      (error: unknown) => {
        if (!(error instanceof BudgetExhausted) && !isDatabaseTimeout(error)) {
          this.deps.logger.error({ err: error, pending_id: pendingId }, 'late claim failed');
        }
      },
    );
  }

  private exhausted(
    phase: 'identity' | 'claim',
    pendingId: string,
    started: number,
  ): RespondResult {
    this.deps.observer.timeout(phase);
    this.record(phase, 'timeout', pendingId, started);
    return failure('temporarily_unavailable');
  }

  private record(
    phase: 'identity' | 'claim' | 'delivery',
    outcome: string,
    pendingId: string,
    started: number,
  ): void {
    this.deps.observer.phase({
      phase,
      outcome,
      pendingId,
      durationMs: this.deps.store.clock.nowMs() - started,
    });
  }
}
