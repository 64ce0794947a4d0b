/**
 * The user-input registry's vocabulary (DESIGN §7): request kinds, the states
 * of one request, the events that move it, the commands the runner performs,
 * the reasons an event is ignored, what the agent is answered, and the wire
 * view clients see.
 *
 * Owns: types and constants only; no behaviour. The wire views and their
 * vocabulary (options, decisions, statuses, settlement reasons) come from
 * `wire/`, so the registry and its clients cannot disagree.
 * Invariants: `settled` is final (first settlement wins); `revision` starts at
 * 1 and grows by exactly 1 on every applied event; nothing here is persisted
 * (a restart drops every request by design).
 */

import type {
  ActionDecision,
  ConsentDetail,
  ConsentOption,
  ConsentOptionKind,
  FormContent,
  FormSchema,
  Responder,
  SettlementReason,
} from '../wire/index.js';

export type {
  ActionDecision,
  ActionView,
  ConsentDetail,
  ConsentOption,
  ConsentOptionKind,
  ConsentView,
  FormContent,
  FormSchema,
  FormView,
  MachineQueueItem,
  Responder,
  SettlementReason,
  UserInputStatus,
  UserInputView,
} from '../wire/index.js';

export {
  ACTION_DEADLINE_MS,
  CONSENT_DEADLINE_MS,
  CONSENT_RULE_LOOKUP_TIMEOUT_MS,
  FORM_DEADLINE_MS,
  FOLLOW_UP_ATTEMPT_TIMEOUT_MS,
  FOLLOW_UP_BUSY_RECHECK_MS,
  FOLLOW_UP_RETRY_BASE_MS,
  FOLLOW_UP_RETRY_MAX_MS,
  LOST_CALL_TURN_END_WAIT_MS,
  OPEN_USER_INPUTS_PER_AGENT,
} from '../tunables.js';
/** Settled requests kept so a late respond gets `already_settled` rather than `not_found`. */
export const MAX_SETTLED_TOMBSTONES = 1_000;

export type UserInputKind = 'consent' | 'action' | 'form';

interface RequestBase {
  id: string;
  sessionId: string;
  taskId: string;
  createdAtMs: number;
  deadlineAtMs: number;
}

/**
 * An agent asks to run a tool. `profile` + `toolKey` + `command` identify what
 * "always" remembers: what the person saw, so a rule never covers a command they were not shown.
 */
export interface ConsentRequest extends RequestBase {
  kind: 'consent';
  profile: string;
  toolKey: string;
  /** The tool call's whole title; `title` may be cut to the limit. */
  command: string;
  title: string;
  /** The agent's tool-call identity; a newer consent for the same call supersedes an older one. */
  toolCallId: string | null;
  options: readonly ConsentOption[];
  details: readonly ConsentDetail[];
}

/** An agent asks the person to do something outside (connect a service, sign in, …). */
export interface ActionRequest extends RequestBase {
  kind: 'action';
  title: string;
  instructions: string;
  url: string | null;
  /**
   * Whether the answer is also sent as a follow-up message once the turn
   * ends (an MCP `request_user_action`). False where the agent's waiting
   * call alone carries on from the answer (an ACP URL elicitation), as long
   * as its turn runs: answered after that, it is sent as a follow-up too.
   */
  followUp: boolean;
  /**
   * Asked while no turn of its session ran (an agent's call between turns):
   * no turn's end is coming to make its answer due, so it waits as if its
   * turn had already ended and an answer is sent at once.
   */
  outsideTurn?: boolean;
}

/**
 * An agent asks the person to fill in a form (an ACP form elicitation). It
 * blocks the agent like a consent; `turnId` null means it belongs to the
 * session rather than a turn, so no turn end sweeps it.
 */
export interface FormRequest extends RequestBase {
  kind: 'form';
  title: string;
  message: string;
  schema: FormSchema;
  turnId: string | null;
}

export type UserInputRequest = ConsentRequest | ActionRequest | FormRequest;

/** A person's answer to a form; accepted content has been checked against its schema. */
export type FormResponse = { decision: 'accept'; content: FormContent } | { decision: 'decline' };

/**
 * What a person sends; principal-free (the caller has checked visibility). A
 * consent's reject may carry the person's reason: ACP's permission reply has
 * no field for it, so it reaches the agent as a follow-up once its turn ends.
 */
export type HumanResponse =
  | { option_id: string; reason?: string }
  | { decision: ActionDecision; reason?: string }
  | FormResponse;

/** Why an agent got no human answer; never confused with a person's "reject" option. */
export type RefusalReason = 'timed_out' | 'swept' | 'superseded';

/** What the agent's waiting call resolves with, exactly once. */
export type AgentOutcome =
  | { kind: 'selected'; option_id: string; option_kind: ConsentOptionKind; remembered: boolean }
  /** `reason`: the person's own words with a Skip, when they gave some. */
  | { kind: 'decided'; decision: ActionDecision; reason?: string }
  | { kind: 'submitted'; content: FormContent }
  | { kind: 'declined' }
  | { kind: 'refused'; reason: RefusalReason };

/**
 * What the person chose, kept on the request for views, with who chose it. A
 * remembered "always" names the person who set it.
 */
export type Answer =
  | {
      kind: 'option';
      option_id: string;
      remembered: boolean;
      /** The person's own words with a Reject, when they gave some. */
      reason?: string;
      respondedBy: Responder;
    }
  | { kind: 'decision'; decision: ActionDecision; reason?: string; respondedBy: Responder }
  | { kind: 'form'; response: FormResponse; respondedBy: Responder };

/** `agent_exited`: failed because the agent's process exited (nobody stopped it). */
export type TurnOutcome = 'normal' | 'cancelled' | 'failed' | 'agent_exited';

/** How the admission port answered one follow-up attempt. */
export type FollowUpAdmission = 'accepted' | 'busy' | 'refused';

export type DeleteCause = 'session_deleted' | 'task_deleted' | 'reset' | 'shutdown';

// ---------------------------------------------------------------- states

export interface AbsentState {
  status: 'absent';
}

export interface AwaitingState {
  status: 'awaiting';
  request: UserInputRequest;
  revision: number;
  /**
   * The agent's turn already ended normally while this waited (its call timed
   * out on the agent side). An answered action then becomes due at once,
   * because no later turn end would arm it.
   */
  turnEnded: boolean;
  /**
   * The end of its turn named it ended by its agent's exit (`agent_exited`)
   * or by a person's Stop (`swept`), in the write that ends the turn and
   * writes its note; that end settles it so right after. An answer meanwhile
   * is refused as once settled: it would be recorded beside a note that says
   * nobody answered. No view shows it.
   */
  ending?: 'agent_exited' | 'swept';
}

/**
 * The answer a follow-up carries to the agent once its turn ends: an action's
 * Done or Skip, or a consent's Reject with the person's reason (the agent was
 * already answered with the reject option; the reason is all that is owed).
 */
export type OwedAnswer =
  | {
      kind: 'action';
      request: ActionRequest;
      decision: ActionDecision;
      /** The person's own words with a Skip, when they gave some. */
      reason?: string;
    }
  | { kind: 'consent'; request: ConsentRequest; option_id: string; reason: string };

export type ArmedState = OwedAnswer & {
  status: 'armed';
  revision: number;
  respondedBy: Responder;
  followUpText: string;
};

/**
 * A follow-up owed to the session. `attempting`: one admission attempt is in
 * flight (number `attempts`); `waiting`: a retry is scheduled and the item is
 * listed in the session queue; `claimed`: a queue delete/clear holds it.
 */
export type DueState = OwedAnswer & {
  status: 'due';
  revision: number;
  respondedBy: Responder;
  followUpText: string;
  phase: 'attempting' | 'waiting' | 'claimed';
  attempts: number;
  /** Consecutive failed attempts; drives the backoff. */
  failures: number;
  last: 'busy' | 'failed' | null;
};

export interface SettledState {
  status: 'settled';
  request: UserInputRequest;
  revision: number;
  reason: SettlementReason;
  answer: Answer | null;
}

export type LiveState = AwaitingState | ArmedState | DueState;
export type RequestState = LiveState | SettledState;
export type UserInputState = AbsentState | RequestState;

// ---------------------------------------------------------------- events (past-tense facts)

export type UserInputEvent =
  /** `rememberedBy`: the person whose "always" already answers this consent. */
  | { type: 'requested'; request: UserInputRequest; rememberedBy: Responder | null }
  | { type: 'humanResponded'; response: HumanResponse; responder: Responder }
  | { type: 'deadlinePassed' }
  | { type: 'turnEnded'; outcome: TurnOutcome }
  /** The turn's end names this request ended by its agent's exit (`endedByTurnEnd`). */
  | { type: 'agentExitNamed' }
  /** The turn's end names this request ended by a person's Stop (`endedByTurnEnd`). */
  | { type: 'stopNamed' }
  | { type: 'agentCallAborted' }
  /**
   * The agent process's own connection closed after this request's turn had
   * ended (`lostWithAgent`): the agent is gone, and no turn's end is left to
   * say so.
   */
  | { type: 'agentConnectionClosed' }
  | { type: 'superseded' }
  | { type: 'dispatchAccepted'; attempt: number }
  | { type: 'dispatchBusy'; attempt: number }
  | { type: 'dispatchRefused'; attempt: number }
  | { type: 'dispatchFailed'; attempt: number }
  | { type: 'retryTimerElapsed' }
  | { type: 'queueItemClaimed' }
  | { type: 'queueClaimReleased' }
  | { type: 'queueItemRemoved' }
  | { type: 'sessionDeleted'; cause: DeleteCause };

export type UserInputEventType = UserInputEvent['type'];

// ---------------------------------------------------------------- commands (imperatives, as data)

export type UserInputCommand =
  | { type: 'startDeadline'; afterMs: number }
  | { type: 'cancelDeadline' }
  | {
      type: 'rememberAlways';
      /** The task it was chosen in: the rule holds where that task runs. */
      taskId: string;
      profile: string;
      toolKey: string;
      command: string;
      setBy: Responder;
    }
  | { type: 'publishChanged'; revision: number }
  | { type: 'answerAgent'; outcome: AgentOutcome }
  | { type: 'dispatchFollowUp'; sessionId: string; text: string; attempt: number }
  | { type: 'scheduleRetry'; afterMs: number }
  | { type: 'cancelRetry' }
  /** Write in its session's transcript that it ended unanswered: its agent stopped. */
  | { type: 'noteEndedUnanswered' };

export type IgnoreReason =
  | 'unknown_request'
  | 'already_settled'
  | 'duplicate_request'
  | 'response_kind_mismatch'
  | 'unknown_option'
  | 'invalid_content'
  | 'not_turn_scoped'
  | 'reason_without_reject'
  | 'already_answered'
  /** An answer to a request its turn's end named as ended by its agent's exit. */
  | 'agent_exited'
  | 'already_named'
  | 'deadline_not_running'
  | 'turn_already_ended'
  | 'not_due'
  | 'dispatch_in_flight'
  | 'no_dispatch_in_flight'
  | 'stale_attempt'
  | 'claimed_for_removal'
  | 'already_claimed'
  | 'not_claimed'
  /** The runner's, not the rules': a person's decision is being kept; the event waits for it. */
  | 'decision_in_flight';

export type TransitionResult =
  { state: RequestState; commands: UserInputCommand[] } | { ignored: IgnoreReason };

// ---------------------------------------------------------------- wire views
// The views clients see are the wire's (`src/wire/user-input.ts`).
