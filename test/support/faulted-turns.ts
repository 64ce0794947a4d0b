/**
 * A turns harness whose statements a test can fail (`StatementFaults`), with
 * the turns' retries on a fake clock and their pauses logged, so a test
 * drives each retry itself.
 */
import type { Driver } from '../../src/store/index.js';
import { ClockTimers, fakeClock } from './fakes.js';
import { retryLog } from './recorders.js';
import { StatementFaults } from './statement-faults.js';
import { turnsHarness, type TurnsHarness } from './turns-harness.js';

export interface FaultedTurns {
  h: TurnsHarness;
  faults: StatementFaults;
  timers: ClockTimers;
  log: ReturnType<typeof retryLog>;
}

export async function faultedTurns(driver: Driver): Promise<FaultedTurns> {
  const faults = new StatementFaults();
  const timers = new ClockTimers(fakeClock());
  const log = retryLog();
  const h = await turnsHarness(driver, { plugins: [faults], timers, logger: log.logger });
  return { h, faults, timers, log };
}
