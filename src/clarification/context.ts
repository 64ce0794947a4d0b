/** Everything the clarification services share, passed in once at start-up. */
import type { AgentRuntime } from '../agents/runtime.js';
import type { SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/logger.js';
import type { ResponseObserver } from '../observability/response-observer.js';
import type { Store } from '../store/index.js';
import type { Timers } from '../support/timers.js';
import type { DecisionBoard } from './decisions.js';
import type { LiveWaiters } from './waiters.js';

export const PRE_CLAIM_BUDGET_MS = 5_000;
export const DELIVERY_BUDGET_MS = 30_000;
export const LIVE_WAIT_MS = 2 * 60 * 60 * 1000;

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

export interface ClarificationDeps {
  store: Store;
  waiters: LiveWaiters;
  runtime: AgentRuntime;
  /** Every session write goes through it: lock, change, revision, commit, publish. */
  sessions: SessionWriter;
  observer: ResponseObserver;
  logger: Logger;
  timers: Timers;
  budgets: ClarificationBudgets;
  /** Told when a claim is handed off; the service makes one when none is given. */
  decisions?: DecisionBoard;
}
