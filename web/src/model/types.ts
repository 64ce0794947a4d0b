/**
 * Wire shapes of the Clarion REST and WebSocket API as the browser sees them
 * (mirrors `src/events/types.ts`, `src/http/task-routes.ts`,
 * `src/clarification/pending-list.ts` and the views of
 * `src/user-input/types.ts`). Kept free of DOM and React so the read models
 * can be tested in Node.
 */

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
// Mirrors `UserInputView` in `src/user-input/types.ts` (DESIGN §7).

export type UserInputStatus = 'awaiting' | 'armed' | 'due' | 'settled';

export type SettlementReason =
  'human' | 'timed_out' | 'swept' | 'superseded' | 'dispatched' | 'rejected';

export type ConsentOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** One choice the agent offers for a consent, with the agent's own label. */
export interface ConsentOption {
  option_id: string;
  label: string;
  kind: ConsentOptionKind;
}

export type ActionDecision = 'done' | 'skip';

interface UserInputViewBase {
  id: string;
  session_id: string;
  task_id: string;
  status: UserInputStatus;
  /** Starts at 1 and grows by 1 on every change: the higher one is newer. */
  revision: number;
  created_at: string;
  /** While awaiting only. */
  deadline_at: string | null;
  settled_reason: SettlementReason | null;
  title: string;
}

export interface ConsentView extends UserInputViewBase {
  kind: 'consent';
  tool_key: string;
  options: ConsentOption[];
  selected_option_id: string | null;
  /** Allowed by an earlier "always" without asking. */
  remembered: boolean;
}

export interface ActionView extends UserInputViewBase {
  kind: 'action';
  instructions: string;
  url: string | null;
  decision: ActionDecision | null;
  follow_up_text: string | null;
  /** Listed in the session queue as a machine-owned item. */
  queued: boolean;
  follow_up_attempts: number;
}

export type UserInputView = ConsentView | ActionView;

export type UserInputAnswer = { option_id: string } | { decision: ActionDecision };
