/** Structured logs, counters and the views that serve them (DESIGN §9). */
export type { Logger } from './logger.js';
export { createLogger, silentLogger } from './logger.js';
export type {
  ClarionMetrics,
  MetricsOptions,
  RespondResultLike,
  ResponseOutcome,
} from './metrics.js';
export { createMetrics, RESPONSE_OUTCOMES, RESPONSE_PHASES, responseOutcomeOf } from './metrics.js';
export type {
  ResponseObserver,
  ResponseObserverDeps,
  ResponsePhase,
  ResponsePhaseRecord,
} from './response-observer.js';
export { createResponseObserver } from './response-observer.js';
export type { DebugVars, ProcessProbe, ProcessVars } from './debug-vars.js';
export { debugVars, processProbe } from './debug-vars.js';
