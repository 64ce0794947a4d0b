/** Everything the clarification services share, passed in once at start-up. */
import { DELIVERY_BUDGET_MS, LIVE_WAIT_MS, PRE_CLAIM_BUDGET_MS } from '../tunables.js';
import type { AgentRuntime } from '../agents/runtime.js';
import type { EventPublisher } from '../events/types.js';
import type { Logger } from '../observability/logger.js';
import type { ResponseObserver } from '../observability/response-observer.js';
import type { Store } from '../store/index.js';
import type { Timers } from '../support/timers.js';
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

export interface ClarificationDeps {
  store: Store;
  waiters: LiveWaiters;
  runtime: AgentRuntime;
  events: EventPublisher;
  observer: ResponseObserver;
  logger: Logger;
  timers: Timers;
  budgets: ClarificationBudgets;
  /** Told when a claim is handed off; the service makes one when none is given. */
  decisions?: DecisionBoard;
}
