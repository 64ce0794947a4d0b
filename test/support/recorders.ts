/** Publishers and observers that keep what they were given, for assertions. */
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
