/** The public surface of `src/support/`. */
export { type Clock, formatTimestamp, systemClock } from './clock.js';
export { type IdSource, uuidSource } from './ids.js';
export { pause, type RepeatingTimers, type Timers, systemTimers } from './timers.js';
export { failpoint, pausePoint } from './failpoints.js';
export { declaredLength, readBodyAtMost } from './body.js';
export { KeyedSerial } from './keyed-serial.js';
export { makeDirectory } from './make-directory.js';
export {
  type Budget,
  BudgetExhausted,
  EXHAUSTED,
  startBudget,
  withinBudget,
  withinFreshBudget,
} from './budget.js';
export { BUILT_CLI, BUILT_DEMO_AGENT, BUILT_WEB_APP, builtPath } from './build-output.js';
