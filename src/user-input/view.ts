/**
 * Pure projections of registry state to what clients see: the request view
 * (REST snapshot and events, compared by `revision`) and the machine-owned
 * queue item of a due follow-up. No behaviour, no I/O.
 */
import { formatTimestamp } from '../support/index.js';
import { followUpText } from './transition.js';
import type {
  ActionDecision,
  DueState,
  MachineQueueItem,
  RequestState,
  Responder,
  UserInputKind,
  UserInputState,
  UserInputView,
} from './types.js';

/** The wire's one timestamp format (nine fractional digits), so stamps compare as text. */
function iso(ms: number): string {
  return formatTimestamp(BigInt(Math.trunc(ms)) * 1_000_000n);
}

/** A due follow-up is listed in the session queue while it waits for its next attempt. */
export function isQueued(state: RequestState): state is DueState {
  return state.status === 'due' && state.phase === 'waiting';
}

/**
 * Whether the session queue's list changed with `previous` → `next`: the
 * follow-up joined it or left it (taken for an attempt, removed, settled).
 * A change within or outside the queue (an attempt's result, a settlement
 * after it was taken) lists nothing new.
 */
export function queueMembershipChanged(previous: UserInputState, next: RequestState): boolean {
  return (previous.status !== 'absent' && isQueued(previous)) !== isQueued(next);
}

function respondedByOf(state: RequestState): Responder | null {
  if (state.status === 'awaiting') return null;
  if (state.status === 'settled') return state.answer?.respondedBy ?? null;
  return state.respondedBy;
}

export function toView(state: RequestState): UserInputView {
  const { request } = state;
  const base = {
    id: request.id,
    session_id: request.sessionId,
    task_id: request.taskId,
    status: state.status,
    revision: state.revision,
    created_at: iso(request.createdAtMs),
    deadline_at: state.status === 'awaiting' ? iso(request.deadlineAtMs) : null,
    settled_reason: state.status === 'settled' ? state.reason : null,
    responded_by: respondedByOf(state),
    title: request.title,
  };
  if (request.kind === 'consent') {
    const answer = state.status === 'settled' ? state.answer : null;
    let option = answer?.kind === 'option' ? answer : null;
    // A Reject with a reason is answered while its follow-up is still owed.
    if ((state.status === 'armed' || state.status === 'due') && state.kind === 'consent') {
      option = { ...state, kind: 'option', remembered: false };
    }
    return {
      ...base,
      kind: 'consent',
      tool_key: request.toolKey,
      details: request.details.map((detail) => ({ ...detail })),
      options: request.options.map((entry) => ({ ...entry })),
      selected_option_id: option?.option_id ?? null,
      remembered: option?.remembered ?? false,
      reason: option?.reason ?? null,
    };
  }
  if (request.kind === 'form') {
    const answer =
      state.status === 'settled' && state.answer?.kind === 'form' ? state.answer : null;
    const response = answer?.response;
    return {
      ...base,
      kind: 'form',
      message: request.message,
      schema: request.schema,
      decision: response?.decision ?? null,
      content: response?.decision === 'accept' ? response.content : null,
    };
  }
  let decision: ActionDecision | null = null;
  let reason: string | undefined;
  if ((state.status === 'armed' || state.status === 'due') && state.kind === 'action') {
    decision = state.decision;
    reason = state.reason;
  }
  if (state.status === 'settled' && state.answer?.kind === 'decision') {
    decision = state.answer.decision;
    reason = state.answer.reason;
  }
  return {
    ...base,
    kind: 'action',
    instructions: request.instructions,
    url: request.url,
    decision,
    reason: reason ?? null,
    follow_up_text: decision === null ? null : followUpText(decision, request.title, reason),
    queued: isQueued(state),
    follow_up_attempts: state.status === 'due' ? state.attempts : 0,
  };
}

export function toQueueItem(state: DueState): MachineQueueItem {
  return {
    id: state.request.id,
    session_id: state.request.sessionId,
    text: state.followUpText,
    owner: 'machine',
    editable: false,
    removable: true,
    created_at: iso(state.request.createdAtMs),
  };
}

/**
 * What a session waits on among the kinds of its awaiting requests, the most
 * blocking first: a consent (the agent's tool call is held), else a form,
 * else an action. One rule for this registry's requests and other replicas'.
 */
export function mostBlocking(kinds: Iterable<UserInputKind>): UserInputKind | null {
  let pending: UserInputKind | null = null;
  for (const kind of kinds) {
    if (kind === 'consent') return 'consent';
    if (kind === 'form') pending = 'form';
    else pending ??= 'action';
  }
  return pending;
}
