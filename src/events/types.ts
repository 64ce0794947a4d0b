/**
 * Events as clients receive them over `/api/v1/events` (the shapes are the
 * wire's). Each carries the session's revision, bumped in the same
 * transaction as the change it reports; events are a notification of state
 * the store already holds, never a second source of truth.
 */
import type { ClarionEvent } from '../wire/index.js';

export type { ClarionEvent, ClarionEventType, MessageView, PendingAction } from '../wire/index.js';

/** Where services hand events after their transaction commits. Never throws. */
export interface EventPublisher {
  publish(event: ClarionEvent): void;
}
