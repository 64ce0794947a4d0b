/**
 * Wire shapes of the Clarion REST and WebSocket API as the browser sees them
 * (mirrors `src/events/types.ts`, `src/http/task-routes.ts` and
 * `src/clarification/pending-list.ts`, whose modules reach into the store;
 * the user-input views are the server's own). Kept free of DOM and React so
 * the read models can be tested in Node.
 */
import type { ActionDecision, UserInputView } from '../../../src/user-input/types.js';

export type SessionState =
  'idle' | 'running' | 'waiting_for_input' | 'completed' | 'failed' | 'cancelled';

export type PendingAction = 'clarification' | 'consent' | 'action' | null;

export type RowStatus = 'pending' | 'answered' | 'rejected' | 'expired' | 'cancelled';

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

export interface TaskView {
  id: string;
  workspace_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface SessionView {
  id: string;
  task_id: string;
  agent_profile: string;
  state: SessionState;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A person's queued message: persisted, editable and removable. */
export interface UserQueueItem {
  id: string;
  session_id: string;
  text: string;
  admission_key: string;
  position: number;
  owner: 'user';
  editable: true;
  created_at: string;
  updated_at: string;
}

/**
 * A due follow-up waiting for the session (DESIGN §7): memory-owned by the
 * server's registry, never persisted, not editable, removable. Its ID is the
 * user-input request's ID.
 */
export interface MachineQueueItem {
  id: string;
  session_id: string;
  text: string;
  owner: 'machine';
  editable: false;
  removable: true;
  created_at: string;
}

export type QueueItemView = UserQueueItem | MachineQueueItem;

export interface QuestionOption {
  option_id: string;
  label: string;
  description: string;
}

export interface PendingQuestion {
  question_id: string;
  title: string;
  prompt: string;
  multi_select: boolean;
  status: RowStatus;
  options: QuestionOption[];
}

export interface PendingBundle {
  pending_id: string;
  task_id: string;
  session_id: string;
  created_at: string;
  context: string;
  detached: boolean;
  questions: PendingQuestion[];
}

export interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

export interface ClarificationResponse {
  pending_id: string;
  answers: Answer[];
  rejected: boolean;
  reject_reason: string;
  responded_at: string;
}

export interface RespondBody {
  answers?: Answer[];
  rejected?: boolean;
  reject_reason?: string;
}

export interface RespondOk {
  claimed: boolean;
  status: 'answered' | 'rejected';
  response: ClarificationResponse;
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
  /** `revision` is the request's own revision here, not the session's. */
  | (SessionScoped & { type: UserInputEventType; request: UserInputView })
  /** The session's queue changed (a follow-up came or went): refetch it. */
  | (SessionScoped & { type: 'queue.changed' });

export const USER_INPUT_EVENT_TYPES = [
  'user_input.requested',
  'user_input.armed',
  'user_input.settled',
] as const;

export type UserInputEventType = (typeof USER_INPUT_EVENT_TYPES)[number];

export type ServerFrame =
  | { type: 'subscribed'; sessions: string[]; all: boolean; refused: string[] }
  | { type: 'unsubscribed'; sessions: string[]; all: boolean }
  | { type: 'event'; event: ClarionEvent }
  | { type: 'error'; code: string; error: string };

export const CLARIFICATION_TYPE = 'clarification_request';

// ---------------------------------------------------------------- user-input requests
// The server's own wire types: `src/user-input/types.ts` imports nothing and
// is types only, so the browser shares it rather than a copy that can drift.
export type {
  ActionDecision,
  ActionView,
  ConsentOption,
  ConsentOptionKind,
  ConsentView,
  SettlementReason,
  UserInputStatus,
  UserInputView,
} from '../../../src/user-input/types.js';

export type UserInputAnswer = { option_id: string } | { decision: ActionDecision };
