/**
 * Wire shapes of the Clarion REST and WebSocket API as the browser sees them
 * (mirrors `src/events/types.ts`, `src/http/task-routes.ts` and
 * `src/clarification/pending-list.ts`). Kept free of DOM and React so the
 * read model can be tested in Node.
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

export interface QueueItemView {
  id: string;
  session_id: string;
  text: string;
  admission_key: string;
  position: number;
  owner: 'user' | 'follow_up';
  editable: boolean;
  created_at: string;
  updated_at: string;
}

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
  | (SessionScoped & { type: 'session.state_changed'; state: SessionState });

export type ServerFrame =
  | { type: 'subscribed'; sessions: string[]; all: boolean; refused: string[] }
  | { type: 'unsubscribed'; sessions: string[]; all: boolean }
  | { type: 'event'; event: ClarionEvent }
  | { type: 'error'; code: string; error: string };

export const CLARIFICATION_TYPE = 'clarification_request';
