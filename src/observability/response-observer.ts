/**
 * What the clarification resolver reports about each response (DESIGN §9):
 * one `clarification.response.phase` record per phase, and a timeout counter
 * labelled only by phase. Pending IDs go into logs, never into metric labels.
 */
import type { Driver } from '../store/index.js';
import type { Logger } from './logger.js';
import { responseOutcomeOf, type ClarionMetrics, type RespondResultLike } from './metrics.js';

export type ResponsePhase = 'identity' | 'claim' | 'delivery';

export interface ResponsePhaseRecord {
  readonly phase: ResponsePhase;
  /** Short, closed vocabulary: `ok`, `not_found`, `invalid`, `lost`, `timeout`, `error`, … */
  readonly outcome: string;
  readonly durationMs: number;
  readonly pendingId: string;
}

export interface ResponseObserver {
  phase(record: ResponsePhaseRecord): void;
  /** The pre-claim budget ran out in `phase`. */
  timeout(phase: ResponsePhase): void;
  /** How one response ended, whichever surface (REST, MCP) it came from. */
  responded(result: RespondResultLike): void;
}

/** What `createResponseObserver` writes to: a pino logger and Clarion's metrics. */
export interface ResponseObserverDeps {
  readonly logger: Logger;
  readonly metrics: Pick<ClarionMetrics, 'observePhase' | 'responseTimeout' | 'responseOutcome'>;
  /** The database driver, so a slow phase can be told apart per engine. */
  readonly driver: Driver;
}

/**
 * One `clarification.response.phase` log record per phase, with the pending ID
 * as a log field (searchable), and the duration in the histogram by phase only.
 */
export function createResponseObserver(deps: ResponseObserverDeps): ResponseObserver {
  const { logger, metrics, driver } = deps;
  return {
    phase(record) {
      logger.info(
        {
          phase: record.phase,
          outcome: record.outcome,
          duration_ms: record.durationMs,
          driver,
          pending_id: record.pendingId,
        },
        'clarification.response.phase',
      );
      metrics.observePhase(record.phase, record.durationMs);
    },
    timeout(phase) {
      metrics.responseTimeout(phase);
    },
    responded(result) {
      metrics.responseOutcome(responseOutcomeOf(result));
    },
  };
}
