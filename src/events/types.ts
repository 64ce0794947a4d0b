/**
 * Events as clients receive them over `/api/v1/events`. Each carries the
 * session's revision (`task_sessions.revision`, bumped in the same transaction
 * as the change it reports), so a client keeps the highest revision it has
 * seen per session and drops anything older. Events are a notification of
 * state the store already holds; they are never a second source of truth.
 */
import type { SessionState } from '../store/index.js';
import type { UserInputView } from '../user-input/index.js';

/** What a session is waiting for from a person, if anything. */
export type PendingAction = 'clarification' | 'consent' | 'action' | null;

/** The wire shape of one transcript row, shared by REST and events. */
export interface MessageView {
  id: string;
  session_id: string;
  task_id: string;
  turn_id: string;
  type: string;
  author: string;
  content: string;
  metadata: Record<string, unknown>;
  requests_input: boolean;
  created_at: string;
  updated_at: string;
}

interface SessionScoped {
  session_id: string;
  task_id: string;
  revision: number;
  pending_action: PendingAction;
}

export type ClarionEvent =
  | (SessionScoped & { type: 'message.added'; message: MessageView })
  | (SessionScoped & { type: 'message.updated'; message: MessageView })
  | (SessionScoped & { type: 'session.state_changed'; state: SessionState })
  /**
   * A memory-owned user-input request changed. `revision` here is the
   * request's own revision (requests live in memory, not in a session row);
   * clients keep the highest per request ID.
   */
  | (SessionScoped & {
      type: 'user_input.requested' | 'user_input.armed' | 'user_input.settled';
      request: UserInputView;
    })
  /** The session's queue changed (a machine-owned follow-up came or went); refetch it. */
  | (SessionScoped & { type: 'queue.changed' });

export type ClarionEventType = ClarionEvent['type'];

/** Where services hand events after their transaction commits. Never throws. */
export interface EventPublisher {
  publish(event: ClarionEvent): void;
}
