/**
 * The clarification lifecycle (DESIGN §5): bundles, live waiters, the
 * resolver and start-up recovery. HTTP and MCP call `ClarificationService`.
 */
export type { AskOptions, AskResult, BundleRead, BundleView, DecisionWait } from './service.js';
export { ClarificationService } from './service.js';
export type { DecisionCaller, RespondResult } from './resolver.js';
export type { ClarificationBudgets, ClarificationDeps } from './context.js';
export {
  DEFAULT_BUDGETS,
  DELIVERY_BUDGET_MS,
  LIVE_WAIT_MS,
  PRE_CLAIM_BUDGET_MS,
} from './context.js';
export { LiveWaiters } from './waiters.js';
export type { WaitOutcome } from './waiters.js';
export { readResponder } from './bundle.js';
export type { RecoveryReport } from './recovery.js';
export { recoverAtStartUp, recoverClarifications } from './recovery.js';
export { noteTurnCutByStop } from './interrupted-turns.js';
export type { Answer, ClarificationResponse, RespondInput } from './outcome.js';
export type { Question, QuestionOption } from './questions.js';
export { normalizeAsk } from './questions.js';
export type {
  PendingBundle,
  PendingListOptions,
  PendingListResult,
  PendingPage,
  PendingQuestion,
} from './pending-list.js';
export {
  DEFAULT_PENDING_PAGE,
  MAX_PENDING_PAGE,
  decodePendingCursor,
  encodePendingCursor,
  listPendingBundles,
} from './pending-list.js';
export { type AskInput } from './questions.js';
export { type SuccessorTurns } from './context.js';
