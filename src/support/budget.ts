/**
 * A time budget: an AbortSignal that fires when it runs out, plus the
 * remaining time for bounding database statements. Budgets are fresh per
 * phase and independent of the caller, whose disconnect is a different
 * outcome (DESIGN §5.1).
 */
import type { Clock } from './clock.js';
import type { Timers } from './timers.js';

export class BudgetExhausted extends Error {
  readonly code = 'budget_exhausted';
  constructor() {
    super('time budget exhausted');
    this.name = 'BudgetExhausted';
  }
}

export interface Budget {
  readonly signal: AbortSignal;
  /** Resolves when the budget runs out; never rejects. */
  readonly exhausted: Promise<void>;
  remainingMs(): number;
  /** Throws `BudgetExhausted` once the budget has run out. */
  check(): void;
  dispose(): void;
}

export function startBudget(ms: number, clock: Clock, timers: Timers): Budget {
  const controller = new AbortController();
  const deadline = clock.nowMs() + ms;
  let fire: () => void = () => {};
  const exhausted = new Promise<void>((resolve) => {
    fire = resolve;
  });
  const timer = timers.setTimeout(() => {
    controller.abort(new BudgetExhausted());
    fire();
  }, ms);
  return {
    signal: controller.signal,
    exhausted,
    remainingMs: () => Math.max(0, deadline - clock.nowMs()),
    check() {
      if (controller.signal.aborted) throw new BudgetExhausted();
    },
    dispose: () => {
      timer.cancel();
    },
  };
}

export const EXHAUSTED = Symbol('exhausted');

/**
 * Waits for `work` or the budget, whichever ends first. On a budget already
 * spent it throws `BudgetExhausted` without waiting.
 */
export async function withinBudget<T>(
  budget: Budget,
  work: Promise<T>,
): Promise<T | typeof EXHAUSTED> {
  if (budget.signal.aborted) {
    // The work already runs and the caller gives up on it: a later failure of it must not
    // become an unhandled rejection, which ends a Node process.
    work.catch(() => undefined);
    throw new BudgetExhausted();
  }
  return Promise.race([work, budget.exhausted.then((): typeof EXHAUSTED => EXHAUSTED)]);
}

/**
 * Runs `work` on a budget of `ms` of its own and waits for it or the budget,
 * whichever ends first; the budget is disposed either way. On `EXHAUSTED`
 * the work goes on, and nobody waits for it.
 */
export async function withinFreshBudget<T>(
  ms: number,
  clock: Clock,
  timers: Timers,
  work: (budget: Budget) => Promise<T>,
): Promise<T | typeof EXHAUSTED> {
  const budget = startBudget(ms, clock, timers);
  try {
    return await withinBudget(budget, work(budget));
  } finally {
    budget.dispose();
  }
}
