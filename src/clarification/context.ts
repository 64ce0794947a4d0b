/** Everything the clarification services share, passed in once at start-up. */
import { DELIVERY_BUDGET_MS, LIVE_WAIT_MS, PRE_CLAIM_BUDGET_MS } from '../tunables.js';
import type { Readiness } from '../agents/index.js';
import type { SessionWrite, SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import type { ResponseObserver } from '../observability/index.js';
import type {
  DeliveryOwners,
  DispatchRecovery,
  OwnerTerms,
  RepoContext,
  Store,
  TurnRecord,
} from '../store/index.js';
import type { Timers } from '../support/index.js';
import type { DecisionBoard } from './decisions.js';
import type { LiveWaiters } from './waiters.js';

export { DELIVERY_BUDGET_MS, LIVE_WAIT_MS, PRE_CLAIM_BUDGET_MS };

export interface ClarificationBudgets {
  preClaimMs: number;
  deliveryMs: number;
  liveWaitMs: number;
}

export const DEFAULT_BUDGETS: ClarificationBudgets = {
  preClaimMs: PRE_CLAIM_BUDGET_MS,
  deliveryMs: DELIVERY_BUDGET_MS,
  liveWaitMs: LIVE_WAIT_MS,
};

/**
 * The successor turn a detached answer starts. Turn authority belongs to
 * `turns/` (`successor-turn.ts` implements this); clarification only drives
 * it, so it is passed in rather than imported. The `write` functions run
 * inside a session write the caller opened.
 */
export interface SuccessorTurns {
  /** Reserves the turn, unpublished: the answered bundle's turn stays current. */
  reserve(
    write: SessionWrite,
    input: { taskId: string; recovery: DispatchRecovery },
  ): Promise<TurnRecord>;
  /** Whether the agent can take a prompt now (starting it if need be); never sends one. */
  readiness(sessionId: string): Promise<Readiness>;
  /** Drops a reservation that was never attempted. */
  release(write: SessionWrite, turnId: string): Promise<boolean>;
  /** The at-most-once boundary; false when the reservation is gone. */
  markAttempted(write: SessionWrite, turnId: string): Promise<boolean>;
  /** Sends the prompt; resolves once the agent accepted it. */
  dispatch(input: {
    sessionId: string;
    turnId: string;
    text: string;
    signal: AbortSignal;
  }): Promise<void>;
  /** The turn becomes an ordinary turn; on acceptance the session runs. */
  settle(write: SessionWrite, turnId: string, accepted: boolean): Promise<void>;
}

/**
 * The other replicas on the store (issue 16), as delivery needs them; absent
 * with one server. `cluster/` implements it over the wake bus.
 */
export interface ClaimReplicas {
  /** This replica's ID. */
  readonly id: string;
  /** The session's live lease holder, and whether `askedOn` is a live replica. */
  owners(sessionId: string, askedOn: string | undefined): Promise<DeliveryOwners>;
  /** What `owners` judges by, now: for a read that judges them itself (the identity read). */
  ownerTerms(): OwnerTerms;
  /**
   * Tells every replica that a claim of `pendingId` waits for its deliverer:
   * with the commit of `tx` when given, else at once.
   */
  announce(pendingId: string, tx?: RepoContext): Promise<void>;
  /**
   * Resolves at the next wake about the session or the next poll of the wake
   * bus (a wake may be lost: the caller reads the store again), after `ms`,
   * or when `signal` aborts.
   */
  changed(sessionId: string, ms: number, signal: AbortSignal): Promise<void>;
}

export interface ClarificationDeps {
  store: Store;
  waiters: LiveWaiters;
  successors: SuccessorTurns;
  /** Every session write goes through it: lock, change, revision, commit, publish. */
  sessions: SessionWriter;
  observer: ResponseObserver;
  logger: Logger;
  timers: Timers;
  budgets: ClarificationBudgets;
  /** Several replicas share the store: delivery may belong to another. */
  replicas?: ClaimReplicas;
  /**
   * Several replicas: before an answer goes to a live wait here, renews this
   * replica's leases when they are no longer certainly valid; a session lost
   * meanwhile is fenced first (its waits end), so the claim goes to its holder.
   */
  leases?: { confirm(sessionId: string): Promise<boolean> };
  /** Told when a claim is handed off; the service makes one when none is given. */
  decisions?: DecisionBoard;
  /**
   * A newer turn became the session's current one (a successor marked
   * attempted): the service sets it to end the waits on the bundles it
   * superseded without holding up the dispatch, as work `close` waits for.
   */
  newerTurn?: (sessionId: string) => void;
  /** Bundles one session's agent may hold open at once; `OPEN_ASKS_PER_AGENT` when absent. */
  openAsksPerAgent?: number;
}
