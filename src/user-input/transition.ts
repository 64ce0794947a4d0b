/**
 * The registry's rules (DESIGN §7) as one pure, total function:
 * `transition(state, event)` is either the next state with the commands to
 * run, or an ignore with a reason. No clock, no timers, no I/O: deadlines and
 * retries leave here as commands with a duration, and the runner comes back
 * with `deadlinePassed` / `retryTimerElapsed`.
 *
 * Invariants: settled is final (first settlement wins); every applied event
 * bumps `revision` by exactly 1 and emits exactly one `publishChanged`, but
 * `agentExitNamed`, which changes no view, only what an answer gets, and
 * commands nothing;
 * every awaiting → settled path answers the agent once; a due follow-up is
 * settled `dispatched` only on an acknowledged acceptance, and ordinary turn
 * errors never sweep it.
 */
import { validateFormContent } from '../wire/index.js';
import {
  FOLLOW_UP_BUSY_RECHECK_MS,
  FOLLOW_UP_RETRY_BASE_MS,
  FOLLOW_UP_RETRY_MAX_MS,
  type ActionDecision,
  type ActionRequest,
  type Answer,
  type ArmedState,
  type AwaitingState,
  type ConsentOption,
  type ConsentRequest,
  type DueState,
  type FormRequest,
  type FormResponse,
  type HumanResponse,
  type IgnoreReason,
  type LiveState,
  type OwedAnswer,
  type RefusalReason,
  type RequestState,
  type Responder,
  type SettledState,
  type SettlementReason,
  type TransitionResult,
  type TurnOutcome,
  type UserInputCommand,
  type UserInputEvent,
  type UserInputRequest,
  type UserInputState,
} from './types.js';

/** The message the person "sends" once the agent's turn is over, with their reason for a Skip. */
export function followUpText(decision: ActionDecision, title: string, reason?: string): string {
  const subject = title.trim();
  if (decision === 'done') return `Continue. I have completed: ${subject}`;
  const skipped = `I skipped: ${subject}. Continue without it.`;
  return reason === undefined || reason === '' ? skipped : `${skipped} My reason: ${reason}`;
}

/**
 * What a Reject's reason becomes once the agent's turn is over: ACP's
 * permission reply carries no words, so, as Claude Code's "No, and tell
 * Claude what to do differently" does, they follow as the person's message.
 */
export function rejectFollowUpText(title: string, reason: string): string {
  return `I rejected: ${title.trim()}. My reason: ${reason}`;
}

function followUpTextOf(owed: OwedAnswer): string {
  return owed.kind === 'consent'
    ? rejectFollowUpText(owed.request.title, owed.reason)
    : followUpText(owed.decision, owed.request.title, owed.reason);
}

/** Delay before the next attempt after `failures` consecutive failures (1 s, 2 s, 4 s … 30 s). */
export function retryDelayMs(failures: number): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(FOLLOW_UP_RETRY_BASE_MS * 2 ** Math.min(exponent, 30), FOLLOW_UP_RETRY_MAX_MS);
}

/**
 * The option a remembered "always" selects: the agent's allow-once, never its
 * own allow-always, which the agent would keep for the rest of its session
 * where a revoke of the rule cannot reach it. Without an allow-once the rule
 * does not answer and a person is asked (who may still choose the agent's
 * "always" themselves).
 */
export function rememberedOption(options: readonly ConsentOption[]): ConsentOption | undefined {
  return options.find((option) => option.kind === 'allow_once');
}

function assertNever(value: never): never {
  throw new Error(`unhandled user-input event: ${JSON.stringify(value)}`);
}

function ignore(reason: IgnoreReason): TransitionResult {
  return { ignored: reason };
}

function applied(state: RequestState, commands: UserInputCommand[]): TransitionResult {
  return { state, commands };
}

function publish(state: RequestState): UserInputCommand {
  return { type: 'publishChanged', revision: state.revision };
}

function refuse(reason: RefusalReason): UserInputCommand {
  return { type: 'answerAgent', outcome: { kind: 'refused', reason } };
}

function answerOf(state: LiveState): Answer | null {
  if (state.status === 'awaiting') return null;
  if (state.kind === 'consent') {
    return {
      kind: 'option',
      option_id: state.option_id,
      remembered: false,
      reason: state.reason,
      respondedBy: state.respondedBy,
    };
  }
  return {
    kind: 'decision',
    decision: state.decision,
    ...(state.reason === undefined ? {} : { reason: state.reason }),
    respondedBy: state.respondedBy,
  };
}

/** Timers that must stop when `state` leaves its status. */
function cleanupOf(state: LiveState): UserInputCommand[] {
  if (state.status === 'awaiting') return [{ type: 'cancelDeadline' }];
  if (state.status === 'due' && state.phase === 'waiting') return [{ type: 'cancelRetry' }];
  return [];
}

/**
 * Settles a live request. `refusal` answers an agent that is still waiting;
 * `cleanup: false` when the timer being cancelled is the one that fired.
 */
function settle(
  state: LiveState,
  reason: SettlementReason,
  options: { refusal?: RefusalReason; cleanup?: boolean } = {},
): TransitionResult {
  const next: SettledState = {
    status: 'settled',
    request: state.request,
    revision: state.revision + 1,
    reason,
    answer: answerOf(state),
  };
  const commands = options.cleanup === false ? [] : cleanupOf(state);
  commands.push(publish(next));
  if (state.status === 'awaiting' && options.refusal) commands.push(refuse(options.refusal));
  return applied(next, commands);
}

/** Commands run in this order: `before` (timers), publish, `after` (agent answer), dispatch. */
function startAttempt(
  state: DueState,
  before: UserInputCommand[],
  after: UserInputCommand[] = [],
): TransitionResult {
  const next: DueState = {
    ...state,
    revision: state.revision + 1,
    phase: 'attempting',
    attempts: state.attempts + 1,
  };
  return applied(next, [
    ...before,
    publish(next),
    ...after,
    {
      type: 'dispatchFollowUp',
      sessionId: next.request.sessionId,
      text: next.followUpText,
      attempt: next.attempts,
    },
  ]);
}

/**
 * An armed (or just-answered) request becomes due and makes its first attempt;
 * `revision` is the current one (the attempt bumps it once).
 */
function becomeDue(
  owed: OwedAnswer & { respondedBy: Responder },
  revision: number,
  before: UserInputCommand[],
  after: UserInputCommand[] = [],
): TransitionResult {
  const due: DueState = {
    ...ownedOf(owed),
    status: 'due',
    revision,
    respondedBy: owed.respondedBy,
    followUpText: followUpTextOf(owed),
    phase: 'waiting',
    attempts: 0,
    failures: 0,
    last: null,
  };
  return startAttempt(due, before, after);
}

/** Only the owed answer's own fields, whatever state it is read from. */
function ownedOf(owed: OwedAnswer): OwedAnswer {
  if (owed.kind === 'consent') {
    const { kind, request, option_id, reason } = owed;
    return { kind, request, option_id, reason };
  }
  const { kind, request, decision, reason } = owed;
  return { kind, request, decision, ...(reason === undefined ? {} : { reason }) };
}

function waitAgain(state: DueState, last: 'busy' | 'failed'): TransitionResult {
  const failures = last === 'failed' ? state.failures + 1 : 0;
  const next: DueState = {
    ...state,
    revision: state.revision + 1,
    phase: 'waiting',
    failures,
    last,
  };
  const afterMs = last === 'failed' ? retryDelayMs(failures) : FOLLOW_UP_BUSY_RECHECK_MS;
  return applied(next, [publish(next), { type: 'scheduleRetry', afterMs }]);
}

function onRequested(
  state: UserInputState,
  request: UserInputRequest,
  rememberedBy: Responder | null,
): TransitionResult {
  if (state.status !== 'absent') return ignore('duplicate_request');
  const remembered =
    request.kind === 'consent' && rememberedBy ? rememberedOption(request.options) : undefined;
  if (remembered && rememberedBy) {
    const next: SettledState = {
      status: 'settled',
      request,
      revision: 1,
      reason: 'human',
      answer: {
        kind: 'option',
        option_id: remembered.option_id,
        remembered: true,
        respondedBy: rememberedBy,
      },
    };
    return applied(next, [
      publish(next),
      {
        type: 'answerAgent',
        outcome: {
          kind: 'selected',
          option_id: remembered.option_id,
          option_kind: remembered.kind,
          remembered: true,
        },
      },
    ]);
  }
  // Asked between turns: no turn's end will come for it, as if its own had ended already.
  const turnEnded = request.kind === 'action' && request.outsideTurn === true;
  const next: AwaitingState = { status: 'awaiting', request, revision: 1, turnEnded };
  return applied(next, [
    { type: 'startDeadline', afterMs: request.deadlineAtMs - request.createdAtMs },
    publish(next),
  ]);
}

function answerConsent(
  state: AwaitingState,
  request: ConsentRequest,
  response: HumanResponse,
  respondedBy: Responder,
): TransitionResult {
  if (!('option_id' in response)) return ignore('response_kind_mismatch');
  const option = request.options.find((candidate) => candidate.option_id === response.option_id);
  if (!option) return ignore('unknown_option');
  const reason = response.reason === '' ? undefined : response.reason;
  const rejected = option.kind === 'reject_once' || option.kind === 'reject_always';
  if (reason !== undefined && !rejected) return ignore('reason_without_reject');
  const selected: UserInputCommand = {
    type: 'answerAgent',
    outcome: {
      kind: 'selected',
      option_id: option.option_id,
      option_kind: option.kind,
      remembered: false,
    },
  };
  if (reason !== undefined) {
    // The agent hears the reject now; the reason follows once its turn ends,
    // like an answered action (the consent's turn is running: it asked).
    const armed: ArmedState = {
      status: 'armed',
      kind: 'consent',
      request,
      option_id: option.option_id,
      reason,
      revision: state.revision + 1,
      respondedBy,
      followUpText: rejectFollowUpText(request.title, reason),
    };
    return applied(armed, [{ type: 'cancelDeadline' }, publish(armed), selected]);
  }
  const next: SettledState = {
    status: 'settled',
    request,
    revision: state.revision + 1,
    reason: 'human',
    answer: { kind: 'option', option_id: option.option_id, remembered: false, respondedBy },
  };
  const commands: UserInputCommand[] = [{ type: 'cancelDeadline' }];
  if (option.kind === 'allow_always') {
    commands.push({
      type: 'rememberAlways',
      taskId: request.taskId,
      profile: request.profile,
      toolKey: request.toolKey,
      command: request.command,
      setBy: respondedBy,
    });
  }
  commands.push(publish(next), selected);
  return applied(next, commands);
}

function answerAction(
  state: AwaitingState,
  request: ActionRequest,
  response: HumanResponse,
  respondedBy: Responder,
): TransitionResult {
  if (!('decision' in response) || isFormResponse(response)) {
    return ignore('response_kind_mismatch');
  }
  const { decision } = response;
  // Only a Skip carries the person's reason; REST refuses one with Done.
  const reason = decision === 'skip' && response.reason ? response.reason : undefined;
  const words = reason === undefined ? {} : { reason };
  const answer: UserInputCommand = {
    type: 'answerAgent',
    outcome: { kind: 'decided', decision, ...words },
  };
  if (!request.followUp && !state.turnEnded) {
    // The agent's own call carries on from the answer (a URL elicitation): no second prompt.
    // Once its turn ended nothing waits on that call, so the answer goes as a follow-up below.
    const settled: SettledState = {
      status: 'settled',
      request,
      revision: state.revision + 1,
      reason: 'human',
      answer: { kind: 'decision', decision, ...words, respondedBy },
    };
    return applied(settled, [{ type: 'cancelDeadline' }, publish(settled), answer]);
  }
  if (state.turnEnded) {
    const decided = { kind: 'action' as const, request, decision, ...words, respondedBy };
    return becomeDue(decided, state.revision, [{ type: 'cancelDeadline' }], [answer]);
  }
  const next: RequestState = {
    status: 'armed',
    kind: 'action',
    request,
    revision: state.revision + 1,
    decision,
    ...words,
    respondedBy,
    followUpText: followUpText(decision, request.title, reason),
  };
  return applied(next, [{ type: 'cancelDeadline' }, publish(next), answer]);
}

function isFormResponse(response: HumanResponse): response is FormResponse {
  return (
    'decision' in response && (response.decision === 'accept' || response.decision === 'decline')
  );
}

/**
 * A form settles on the person's answer at once: the agent is waiting for it.
 * Content is checked here too, so no path can hand the agent content its
 * schema refuses (the registry checks first to name the fields).
 */
function answerForm(
  state: AwaitingState,
  request: FormRequest,
  response: HumanResponse,
  respondedBy: Responder,
): TransitionResult {
  if (!isFormResponse(response)) return ignore('response_kind_mismatch');
  let accepted: FormResponse = { decision: 'decline' };
  if (response.decision === 'accept') {
    const checked = validateFormContent(request.schema, response.content);
    if (!checked.ok) return ignore('invalid_content');
    accepted = { decision: 'accept', content: checked.content };
  }
  const next: SettledState = {
    status: 'settled',
    request,
    revision: state.revision + 1,
    reason: 'human',
    answer: { kind: 'form', response: accepted, respondedBy },
  };
  const outcome =
    accepted.decision === 'accept'
      ? ({ kind: 'submitted', content: accepted.content } as const)
      : ({ kind: 'declined' } as const);
  return applied(next, [
    { type: 'cancelDeadline' },
    publish(next),
    { type: 'answerAgent', outcome },
  ]);
}

function onHumanResponded(
  state: LiveState,
  response: HumanResponse,
  responder: Responder,
): TransitionResult {
  if (state.status !== 'awaiting') return ignore('already_answered');
  // Its turn's end already wrote that nobody answered: refused as once settled.
  if (state.ending)
    return ignore(state.ending === 'agent_exited' ? 'agent_exited' : 'already_settled');
  switch (state.request.kind) {
    case 'consent':
      return answerConsent(state, state.request, response, responder);
    case 'action':
      return answerAction(state, state.request, response, responder);
    case 'form':
      return answerForm(state, state.request, response, responder);
  }
}

function onTurnEnded(state: LiveState, outcome: TurnOutcome): TransitionResult {
  switch (state.status) {
    case 'awaiting': {
      // Its note, written with the end, says the agent's exit ended it: so it settles.
      if (state.ending) return settle(state, state.ending, { refusal: 'swept' });
      // A form asked outside any turn waits for its own deadline or call.
      if (state.request.kind === 'form' && state.request.turnId === null) {
        return ignore('not_turn_scoped');
      }
      // Only an action outlives its turn, and then a later turn's end is not
      // its own: cancelling the person's next message must not end it.
      if (state.turnEnded) return ignore('turn_already_ended');
      // A consent or a form belongs to the turn that asked it; an action
      // outlives a normal end (the person can still do it) but not a cancel
      // or failure.
      if (state.request.kind !== 'action' || outcome !== 'normal') {
        // Said apart when the agent is gone: nobody decided, and no answer can reach it now.
        const reason = outcome === 'agent_exited' ? 'agent_exited' : 'swept';
        return settle(state, reason, { refusal: 'swept' });
      }
      const next: AwaitingState = { ...state, revision: state.revision + 1, turnEnded: true };
      return applied(next, [publish(next)]);
    }
    case 'armed':
      if (outcome !== 'normal') return settle(state, 'swept');
      return becomeDue(state, state.revision, []);
    case 'due':
      // Ordinary turn errors never sweep a due follow-up; any turn end may
      // have freed the session, so a waiting one is tried now.
      return nudge(state);
  }
}

/**
 * The turn's end names a waiting request that its agent's exit, or a
 * person's Stop, ends, in the write that ends the turn; the end itself
 * reaches the registry only after that commit. Nothing a view shows changes,
 * so nothing is published.
 */
function onEndNamed(state: LiveState, outcome: 'agent_exited' | 'cancelled'): TransitionResult {
  if (state.status !== 'awaiting') return ignore('already_answered');
  if (state.ending) return ignore('already_named');
  const planned = onTurnEnded(state, outcome);
  if ('ignored' in planned) return planned;
  return applied({ ...state, ending: outcome === 'agent_exited' ? 'agent_exited' : 'swept' }, []);
}

/**
 * Nobody decided and the agent is gone: said as its turn's end says it of
 * its own requests, with a note of its own, since no turn's end writes one.
 * One a turn's end already named keeps that end's note.
 */
function onAgentConnectionClosed(state: LiveState): TransitionResult {
  if (state.status !== 'awaiting') return ignore('already_answered');
  if (state.ending) return settle(state, state.ending, { refusal: 'swept' });
  const settled = settle(state, 'agent_exited', { refusal: 'swept' });
  if ('ignored' in settled) return settled;
  return applied(settled.state, [...settled.commands, { type: 'noteEndedUnanswered' }]);
}

function nudge(state: DueState): TransitionResult {
  switch (state.phase) {
    case 'attempting':
      return ignore('dispatch_in_flight');
    case 'claimed':
      return ignore('claimed_for_removal');
    case 'waiting':
      return startAttempt(state, [{ type: 'cancelRetry' }]);
  }
}

function onAttemptResult(
  state: LiveState,
  attempt: number,
  result: 'busy' | 'refused' | 'failed',
): TransitionResult {
  if (state.status !== 'due') return ignore('not_due');
  if (state.phase !== 'attempting') return ignore('no_dispatch_in_flight');
  if (attempt !== state.attempts) return ignore('stale_attempt');
  if (result === 'refused') return settle(state, 'rejected');
  return waitAgain(state, result);
}

function onDispatchAccepted(state: LiveState, attempt: number): TransitionResult {
  if (state.status !== 'due') return ignore('not_due');
  // Acceptance is a fact about the admission key, whichever attempt saw it:
  // a late acknowledgement of a timed-out attempt still settles the owner.
  if (attempt < 1 || attempt > state.attempts) return ignore('stale_attempt');
  return settle(state, 'dispatched');
}

function onQueueEvent(
  state: LiveState,
  type: 'queueItemClaimed' | 'queueClaimReleased' | 'queueItemRemoved',
): TransitionResult {
  if (state.status !== 'due') return ignore('not_due');
  if (state.phase === 'attempting') {
    return ignore(type === 'queueClaimReleased' ? 'not_claimed' : 'dispatch_in_flight');
  }
  switch (type) {
    case 'queueItemClaimed': {
      if (state.phase === 'claimed') return ignore('already_claimed');
      const next: DueState = { ...state, revision: state.revision + 1, phase: 'claimed' };
      return applied(next, [{ type: 'cancelRetry' }, publish(next)]);
    }
    case 'queueClaimReleased': {
      if (state.phase !== 'claimed') return ignore('not_claimed');
      const next: DueState = { ...state, revision: state.revision + 1, phase: 'waiting' };
      const afterMs =
        state.last === 'failed' ? retryDelayMs(state.failures) : FOLLOW_UP_BUSY_RECHECK_MS;
      return applied(next, [publish(next), { type: 'scheduleRetry', afterMs }]);
    }
    case 'queueItemRemoved':
      return settle(state, 'rejected');
  }
}

/** The whole table. Total: every (state, event) pair is applied or ignored with a reason. */
export function transition(state: UserInputState, event: UserInputEvent): TransitionResult {
  if (event.type === 'requested') {
    return onRequested(state, event.request, event.rememberedBy);
  }
  if (state.status === 'absent') return ignore('unknown_request');
  if (state.status === 'settled') return ignore('already_settled');
  switch (event.type) {
    case 'humanResponded':
      return onHumanResponded(state, event.response, event.responder);
    case 'deadlinePassed':
      if (state.status !== 'awaiting') return ignore('deadline_not_running');
      return settle(state, 'timed_out', { refusal: 'timed_out', cleanup: false });
    case 'turnEnded':
      return onTurnEnded(state, event.outcome);
    case 'agentExitNamed':
      return onEndNamed(state, 'agent_exited');
    case 'stopNamed':
      return onEndNamed(state, 'cancelled');
    case 'agentCallAborted':
      if (state.status !== 'awaiting') return ignore('already_answered');
      return settle(state, 'swept', { refusal: 'swept' });
    case 'agentConnectionClosed':
      return onAgentConnectionClosed(state);
    case 'superseded':
      if (state.status !== 'awaiting') return ignore('already_answered');
      return settle(state, 'superseded', { refusal: 'superseded' });
    case 'dispatchAccepted':
      return onDispatchAccepted(state, event.attempt);
    case 'dispatchBusy':
      return onAttemptResult(state, event.attempt, 'busy');
    case 'dispatchRefused':
      return onAttemptResult(state, event.attempt, 'refused');
    case 'dispatchFailed':
      return onAttemptResult(state, event.attempt, 'failed');
    case 'retryTimerElapsed':
      if (state.status !== 'due') return ignore('not_due');
      // The timer that fired needs no cancelling.
      return state.phase === 'waiting'
        ? startAttempt(state, [])
        : ignore(state.phase === 'attempting' ? 'dispatch_in_flight' : 'claimed_for_removal');
    case 'queueItemClaimed':
    case 'queueClaimReleased':
    case 'queueItemRemoved':
      return onQueueEvent(state, event.type);
    case 'sessionDeleted':
      return settle(state, 'swept', { refusal: 'swept' });
    default:
      return assertNever(event);
  }
}
