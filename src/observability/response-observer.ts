/**
 * What the clarification resolver reports about each response (DESIGN §9):
 * one `clarification.response.phase` record per phase, and a timeout counter
 * labelled only by phase. Pending IDs go into logs, never into metric labels.
 */
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
}
