/** Publishers, observers and loggers that keep what they were given, for assertions. */
import { pino } from 'pino';
import type { ClarionEvent, EventPublisher } from '../../src/events/types.js';
import type { RespondResultLike } from '../../src/observability/metrics.js';
import type {
  ResponseObserver,
  ResponsePhase,
  ResponsePhaseRecord,
} from '../../src/observability/response-observer.js';

export class RecordingPublisher implements EventPublisher {
  readonly events: ClarionEvent[] = [];
  publish(event: ClarionEvent): void {
    this.events.push(event);
  }
}

export class RecordingObserver implements ResponseObserver {
  readonly phases: ResponsePhaseRecord[] = [];
  readonly timeouts: ResponsePhase[] = [];
  phase(record: ResponsePhaseRecord): void {
    this.phases.push(record);
  }
  timeout(phase: ResponsePhase): void {
    this.timeouts.push(phase);
  }
  readonly results: RespondResultLike[] = [];
  responded(result: RespondResultLike): void {
    this.results.push(result);
  }
}

/**
 * A logger at warn that keeps what storage retries logged: one warning per
 * failed try, with the pause before the next (`retry_in_ms`).
 */
export function retryLog() {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  const pauses = () =>
    lines
      .map((line) => JSON.parse(line) as { retry_in_ms?: number })
      .flatMap((record) => (record.retry_in_ms === undefined ? [] : [record.retry_in_ms]));
  return { logger, pauses };
}
