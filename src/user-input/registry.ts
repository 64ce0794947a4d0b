/**
 * The user-input registry (DESIGN §7): the runner around `transition`, and
 * the only place its effects happen — deadline and retry timers, answering
 * the agent's waiting call, publishing views, keeping "allow always",
 * and admitting follow-ups through the injected admission port.
 *
 * Owns: every memory-only request (live ones plus a bounded set of settled
 * tombstones), the agents' pending answers, and the sweeps of calls whose
 * connection closed, waiting for their turn's end (`lost-calls.ts`). Nothing
 * is persisted here; a restart drops it all by design. "Always allow" rules are the exception the
 * `consentRules` port keeps durably: a person's "always" is kept by the same
 * write as their decision (`recordDecision`), so no transcript names a rule
 * that was not kept, and a consent asks the port before it asks a person, so
 * an "always" answers the very next request; a rule's answer, like a
 * person's, is kept in the transcript before the agent hears it. Without the
 * port (unit tests) the rules live in memory.
 *
 * Invariants: state is committed before any command runs; commands run in
 * the order the rules give them; an ignored event changes nothing and is
 * logged with its reason; a port that throws is logged and never wedges the
 * registry; the admission port is never called from inside a transition, and
 * never for a request that stopped being due before the call.
 */
import {
  AnswerWithdrawn,
  ConsentRuleGone,
  ResponderGone,
  type ConsentRuleToKeep,
  type QueueItemResult,
  type UserInputDeadlines,
  type UserInputPorts,
  type UserInputRegistry,
  type UserInputRespondResult,
} from './ports.js';
import { KeyedSerial } from '../support/index.js';
import { failure, formSchema, validateFormContent, type Failure } from '../wire/index.js';
import { LostCalls } from './lost-calls.js';
import { formTitle, requestInputProblems, type RequestInput } from './request-input.js';
import { transition } from './transition.js';
import {
  ACTION_DEADLINE_MS,
  CONSENT_DEADLINE_MS,
  CONSENT_RULE_LOOKUP_TIMEOUT_MS,
  FORM_DEADLINE_MS,
  FOLLOW_UP_ATTEMPT_TIMEOUT_MS,
  LOST_CALL_TURN_END_WAIT_MS,
  MAX_SETTLED_TOMBSTONES,
  OPEN_USER_INPUTS_PER_AGENT,
  type AgentOutcome,
  type DeleteCause,
  type FollowUpAdmission,
  type HumanResponse,
  type IgnoreReason,
  type LiveState,
  type RequestState,
  type Responder,
  type SettledState,
  type TransitionResult,
  type TurnOutcome,
  type UserInputCommand,
  type UserInputEvent,
  type UserInputRequest,
  type UserInputState,
} from './types.js';
import { isQueued, mostBlocking, queueMembershipChanged, toQueueItem, toView } from './view.js';

const ABSENT: UserInputState = { status: 'absent' };

/**
 * Queue events run under the session write of the person's queue change
 * (`turns/queue.ts`), which reports the queue change itself: the publish
 * port adds none, so one removal is one `queue.changed`.
 */
const QUEUE_CHANGE_REPORTED_BY_CALLER: ReadonlySet<UserInputEvent['type']> = new Set([
  'queueItemClaimed',
  'queueClaimReleased',
  'queueItemRemoved',
]);

interface PendingAnswer {
  /** The session whose agent waits: what its open requests are counted by. */
  readonly sessionId: string;
  resolve(outcome: AgentOutcome): void;
  detach(): void;
}

function assertNever(value: never): never {
  throw new Error(`unhandled user-input command: ${JSON.stringify(value)}`);
}

function isHumanResponse(value: unknown): value is HumanResponse {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (record.reason !== undefined && typeof record.reason !== 'string') return false;
  if ('option_id' in record) return typeof record.option_id === 'string' && !('decision' in record);
  if (record.decision === 'accept') return 'content' in record;
  return ['done', 'skip', 'decline'].includes(record.decision as string);
}

function respondCode(
  reason: IgnoreReason,
): 'not_found' | 'already_settled' | 'agent_exited' | 'invalid' | 'reason_not_allowed' {
  if (reason === 'unknown_request') return 'not_found';
  if (reason === 'agent_exited') return 'agent_exited';
  if (reason === 'reason_without_reject') return 'reason_not_allowed';
  if (
    reason === 'response_kind_mismatch' ||
    reason === 'unknown_option' ||
    reason === 'invalid_content'
  ) {
    return 'invalid';
  }
  return 'already_settled';
}

function queueResult(result: TransitionResult): QueueItemResult {
  if (!('ignored' in result)) return { ok: true };
  switch (result.ignored) {
    case 'unknown_request':
      return { ok: false, code: 'not_found' };
    case 'already_settled':
      return { ok: false, code: 'already_settled' };
    case 'dispatch_in_flight':
      return { ok: false, code: 'in_flight' };
    default:
      return { ok: false, code: 'not_queued' };
  }
}

function buildRequest(
  id: string,
  input: RequestInput,
  nowMs: number,
  deadlines: UserInputDeadlines,
): UserInputRequest {
  const base = { id, sessionId: input.sessionId, taskId: input.taskId, createdAtMs: nowMs };
  if (input.kind === 'consent') {
    return {
      ...base,
      kind: 'consent',
      deadlineAtMs: nowMs + deadlines.consentMs,
      profile: input.profile,
      toolKey: input.toolKey,
      command: input.command,
      title: input.title,
      toolCallId: input.toolCallId ?? null,
      options: input.options.map((option) => ({ ...option })),
      details: input.details ?? [],
    };
  }
  if (input.kind === 'form') {
    return {
      ...base,
      kind: 'form',
      deadlineAtMs: nowMs + deadlines.formMs,
      title: formTitle(input),
      message: input.message,
      // Checked by `requestInputProblems`; parsed again to keep only what is rendered.
      schema: formSchema.parse(input.schema),
      turnId: input.turnId ?? null,
    };
  }
  return {
    ...base,
    kind: 'action',
    deadlineAtMs: nowMs + deadlines.actionMs,
    title: input.title.trim(),
    instructions: input.instructions,
    url: input.url ?? null,
    followUp: input.followUp ?? true,
    ...(input.outsideTurn ? { outsideTurn: true } : {}),
  };
}

/** The refusal of a request over the bound: how many are open, and what frees a place. */
function tooManyOpenRequests(open: number, limit: number): Failure<'too_many_open_requests'> {
  return failure(
    'too_many_open_requests',
    `${open} of your requests (permission, action, form) wait for a person, and an agent may ` +
      `hold at most ${limit} open at once; nothing was asked. A person must answer one first.`,
    { open, limit },
  );
}

export function createUserInputRegistry(ports: UserInputPorts): UserInputRegistry {
  if (ports.consentRules && !ports.recordDecision) {
    throw new Error('a consentRules port needs recordDecision, which keeps each "always"');
  }
  const { logger, timers } = ports;
  const waitFor: UserInputDeadlines = {
    consentMs: CONSENT_DEADLINE_MS,
    actionMs: ACTION_DEADLINE_MS,
    formMs: FORM_DEADLINE_MS,
    lostCallMs: LOST_CALL_TURN_END_WAIT_MS,
    ...ports.deadlines,
  };
  const live = new Map<string, LiveState>();
  const tombstones = new Map<string, SettledState>();
  const answers = new Map<string, PendingAnswer>();
  const deadlines = new Map<string, { cancel(): void }>();
  const retries = new Map<string, { cancel(): void }>();
  const attemptTimeouts = new Map<string, { cancel(): void }>();
  const lostCalls = new LostCalls(timers, waitFor.lostCallMs);
  const openLimit = ports.openPerAgent ?? OPEN_USER_INPUTS_PER_AGENT;
  /** Follow-up admission attempts running, with the session each is for. */
  const inFlight = new Map<Promise<void>, string>();
  /** Remembered "always" answers, each with the person who gave it (no `consentRules` port). */
  const alwaysAllowed = new Map<string, Responder>();
  /** Requests whose person's decision is being kept, with the events that came meanwhile. */
  const held = new Map<string, UserInputEvent[]>();
  /** Answers to one request are judged one after another, however the one before ended. */
  const judging = new KeyedSerial();
  /** Each session's next turn end, watched by callers that read whether a turn runs. */
  const nextTurnEnds = new Map<string, { outcome: TurnOutcome | undefined }>();
  let closed = false;

  const alwaysKey = (rule: { profile: string; toolKey: string; command: string }) =>
    JSON.stringify([rule.profile, rule.toolKey, rule.command]);

  function stateOf(id: string): UserInputState {
    return live.get(id) ?? tombstones.get(id) ?? ABSENT;
  }

  function safely(what: string, requestId: string, effect: () => void): void {
    try {
      effect();
    } catch (error) {
      logger.error({ request_id: requestId, err: error }, `user_input.${what}_failed`);
    }
  }

  function stopTimer(map: Map<string, { cancel(): void }>, id: string): void {
    map.get(id)?.cancel();
    map.delete(id);
  }

  function commit(id: string, state: RequestState): void {
    if (state.status !== 'settled') {
      live.set(id, state);
      return;
    }
    live.delete(id);
    tombstones.set(id, state);
    for (const oldest of tombstones.keys()) {
      if (tombstones.size <= MAX_SETTLED_TOMBSTONES) break;
      tombstones.delete(oldest);
    }
  }

  function dispatch(id: string, event: UserInputEvent): TransitionResult {
    const waiting = held.get(id);
    if (waiting) {
      // A person's decision is being kept: it came first, so this event follows it.
      waiting.push(event);
      return { ignored: 'decision_in_flight' };
    }
    const previous = stateOf(id);
    const result = transition(previous, event);
    if ('ignored' in result) {
      logger.info(
        { request_id: id, event: event.type, status: previous.status, reason: result.ignored },
        'user_input.event_ignored',
      );
      return result;
    }
    commit(id, result.state);
    const queueChanged =
      queueMembershipChanged(previous, result.state) &&
      !QUEUE_CHANGE_REPORTED_BY_CALLER.has(event.type);
    for (const command of result.commands) run(id, result.state, command, queueChanged);
    if (result.state.status === 'settled') release(id);
    return result;
  }

  /** A settled request holds no timers and no waiting agent. */
  function release(id: string): void {
    stopTimer(deadlines, id);
    stopTimer(retries, id);
    stopTimer(attemptTimeouts, id);
    lostCalls.forget(id);
    if (answers.has(id)) {
      logger.error({ request_id: id }, 'user_input.settled_without_answer');
      answer(id, { kind: 'refused', reason: 'swept' });
    }
  }

  /**
   * The session's requests whose agent still waits for an outcome: from the
   * call that asked until a person decides or the request ends, opening
   * ones (their copy or standing rule still being read) included.
   */
  function openRequestsOf(sessionId: string): number {
    let open = 0;
    for (const pending of answers.values()) if (pending.sessionId === sessionId) open += 1;
    return open;
  }

  function answer(id: string, outcome: AgentOutcome): void {
    const pending = answers.get(id);
    answers.delete(id);
    if (pending) {
      pending.detach();
      pending.resolve(outcome);
    }
    if (ports.answerAgent) {
      safely('answer_agent', id, () => {
        ports.answerAgent?.(id, outcome);
      });
    }
  }

  function run(
    id: string,
    state: RequestState,
    command: UserInputCommand,
    queueChanged: boolean,
  ): void {
    switch (command.type) {
      case 'startDeadline':
        stopTimer(deadlines, id);
        deadlines.set(
          id,
          timers.setTimeout(() => {
            deadlines.delete(id);
            dispatch(id, { type: 'deadlinePassed' });
          }, command.afterMs),
        );
        return;
      case 'cancelDeadline':
        stopTimer(deadlines, id);
        return;
      case 'rememberAlways':
        rememberAlways(command);
        return;
      case 'publishChanged':
        safely('publish', id, () => {
          ports.publish(toView(state), { queueChanged });
        });
        return;
      case 'answerAgent':
        answer(id, command.outcome);
        return;
      case 'dispatchFollowUp':
        startAttempt(id, command);
        return;
      case 'scheduleRetry':
        stopTimer(retries, id);
        retries.set(
          id,
          timers.setTimeout(() => {
            retries.delete(id);
            dispatch(id, { type: 'retryTimerElapsed' });
          }, command.afterMs),
        );
        return;
      case 'cancelRetry':
        stopTimer(retries, id);
        return;
      case 'noteEndedUnanswered':
        safely('note_ended', id, () => {
          ports.noteEnded?.(toView(state));
        });
        return;
      default:
        assertNever(command);
    }
  }

  function rememberAlways({
    profile,
    toolKey,
    command,
    setBy,
  }: Extract<UserInputCommand, { type: 'rememberAlways' }>): void {
    // A durable rule was kept by the decision's own write (`judge`), before the answer took effect.
    if (ports.consentRules) return;
    alwaysAllowed.set(alwaysKey({ profile, toolKey, command }), setBy);
  }

  /**
   * The person whose rule answers `request`. A failing lookup, or one slower
   * than `CONSENT_RULE_LOOKUP_TIMEOUT_MS`, asks a person: the agent never
   * waits on the store without a bound.
   */
  function standingRule(
    rules: NonNullable<UserInputPorts['consentRules']>,
    request: Extract<UserInputRequest, { kind: 'consent' }>,
  ): Promise<Responder | null> {
    const lookup = rules.find({
      sessionId: request.sessionId,
      taskId: request.taskId,
      profile: request.profile,
      toolKey: request.toolKey,
      command: request.command,
    });
    return new Promise((resolve) => {
      const timer = timers.setTimeout(() => {
        logger.warn({ request_id: request.id }, 'user_input.consent_rule_lookup_timed_out');
        resolve(null);
      }, CONSENT_RULE_LOOKUP_TIMEOUT_MS);
      lookup.then(
        (rule) => {
          timer.cancel();
          resolve(rule);
        },
        (error: unknown) => {
          timer.cancel();
          logger.warn(
            { request_id: request.id, err: error },
            'user_input.consent_rule_lookup_failed',
          );
          resolve(null);
        },
      );
    });
  }

  function startAttempt(
    id: string,
    command: Extract<UserInputCommand, { type: 'dispatchFollowUp' }>,
  ): void {
    const work = attemptFollowUp(id, command).catch((error: unknown) => {
      logger.error({ request_id: id, err: error }, 'user_input.follow_up_attempt_crashed');
    });
    inFlight.set(work, command.sessionId);
    void work.then(() => inFlight.delete(work));
  }

  async function attemptFollowUp(
    id: string,
    { sessionId, text, attempt }: Extract<UserInputCommand, { type: 'dispatchFollowUp' }>,
  ): Promise<void> {
    // Leave the transition's command run first; then make sure the attempt is still owed.
    await Promise.resolve();
    const current = live.get(id);
    if (
      current?.status !== 'due' ||
      current.phase !== 'attempting' ||
      current.attempts !== attempt
    ) {
      logger.info({ request_id: id, attempt }, 'user_input.follow_up_attempt_skipped');
      return;
    }
    let reported = false;
    const report = (event: UserInputEvent) => {
      if (reported) return;
      reported = true;
      dispatch(id, event);
    };
    const timeout = timers.setTimeout(() => {
      if (attemptTimeouts.get(id) === timeout) attemptTimeouts.delete(id);
      logger.warn({ request_id: id, attempt }, 'user_input.follow_up_attempt_timed_out');
      report({ type: 'dispatchFailed', attempt });
    }, FOLLOW_UP_ATTEMPT_TIMEOUT_MS);
    attemptTimeouts.set(id, timeout);
    let result: FollowUpAdmission | 'failed';
    try {
      result = await ports.admitFollowUp({
        sessionId,
        requestId: id,
        text,
        author: current.respondedBy,
      });
    } catch (error) {
      logger.warn({ request_id: id, attempt, err: error }, 'user_input.follow_up_attempt_failed');
      result = 'failed';
    }
    timeout.cancel();
    if (attemptTimeouts.get(id) === timeout) attemptTimeouts.delete(id);
    switch (result) {
      case 'accepted':
        // Acceptance is a fact even after this attempt timed out: settle on it.
        reported = true;
        dispatch(id, { type: 'dispatchAccepted', attempt });
        return;
      case 'busy':
        report({ type: 'dispatchBusy', attempt });
        return;
      case 'refused':
        logger.warn({ request_id: id, attempt }, 'user_input.follow_up_refused');
        report({ type: 'dispatchRefused', attempt });
        return;
      case 'failed':
        report({ type: 'dispatchFailed', attempt });
        return;
      default:
        logger.error({ request_id: id, attempt, result }, 'user_input.follow_up_unknown_result');
        report({ type: 'dispatchFailed', attempt });
    }
  }

  /**
   * A person's answer, kept before it takes effect: the rules judge it first
   * (nothing is kept for an answer they refuse), the request's other events
   * wait while `recordDecision` runs, then the same event is applied to the
   * unchanged state, so it gives what was kept. Runs synchronously up to
   * the record, so without the port the answer is applied on the call.
   */
  async function judge(
    id: string,
    response: HumanResponse,
    responder: Responder,
  ): Promise<UserInputRespondResult> {
    const current = stateOf(id);
    if (current.status === 'absent') return { ok: false, code: 'not_found' };
    if (current.status === 'settled' && current.reason === 'agent_exited') {
      return { ok: false, code: 'agent_exited' };
    }
    if (!isHumanResponse(response)) return { ok: false, code: 'invalid' };
    // Named per field before the rules run; an answered form says already_settled instead.
    if (
      current.status === 'awaiting' &&
      current.request.kind === 'form' &&
      'decision' in response &&
      response.decision === 'accept'
    ) {
      const checked = validateFormContent(current.request.schema, response.content);
      if (!checked.ok) return { ok: false, code: 'invalid_content', errors: checked.errors };
    }
    const event: UserInputEvent = { type: 'humanResponded', response, responder };
    const planned = transition(current, event);
    if ('ignored' in planned) return { ok: false, code: respondCode(planned.ignored) };
    if (ports.recordDecision) {
      const waiting: UserInputEvent[] = [];
      held.set(id, waiting);
      let kept = false;
      let gone = false;
      try {
        await ports.recordDecision(toView(planned.state), ruleToKeep(planned.commands));
        kept = true;
      } catch (error) {
        gone = error instanceof ResponderGone;
        // Removed while it was recorded: as unknown to them as any request they cannot see.
        if (gone) logger.info({ request_id: id }, 'user_input.responder_gone');
        else logger.error({ request_id: id, err: error }, 'user_input.decision_not_recorded');
      }
      held.delete(id);
      const refused = gone ? 'not_found' : 'not_recorded';
      const result = kept ? applyAnswer(id, event) : ({ ok: false, code: refused } as const);
      for (const later of waiting) dispatch(id, later);
      return result;
    }
    return applyAnswer(id, event);
  }

  /** The "always" an answer sets, kept with its decision; none without a rules port. */
  function ruleToKeep(commands: readonly UserInputCommand[]): ConsentRuleToKeep | undefined {
    if (!ports.consentRules) return undefined;
    const remember = commands.find((command) => command.type === 'rememberAlways');
    if (remember?.type !== 'rememberAlways') return undefined;
    const { taskId, profile, toolKey, command, setBy } = remember;
    return { taskId, profile, toolKey, command, setBy };
  }

  /** The copy of `request` as it will first wait; a failed keep is logged, never thrown. */
  async function keptCopy(request: UserInputRequest): Promise<void> {
    const planned = transition(ABSENT, { type: 'requested', request, rememberedBy: null });
    if ('ignored' in planned) return;
    try {
      await ports.keepOpen?.(toView(planned.state));
    } catch (error) {
      // A restart will not say this request ended; it is asked all the same.
      logger.warn({ request_id: request.id, err: error }, 'user_input.copy_not_kept');
    }
  }

  /**
   * Who a rule's answer to `request` is given as, once its line in the
   * transcript (naming who set the rule, and where) is kept, as a person's
   * decision is: a rule's answer that cannot be kept is not given, and
   * `null` asks a person instead (with the copy any asked request keeps).
   */
  async function keptRuleAnswer(
    request: UserInputRequest,
    rememberedBy: Responder,
    withdrawn: AbortSignal | undefined,
  ): Promise<Responder | null> {
    const planned = transition(ABSENT, { type: 'requested', request, rememberedBy });
    // A rule that cannot answer (no allow-once offered) asks a person, as one without a rule.
    if ('ignored' in planned || planned.state.status !== 'settled') return null;
    if (!ports.recordDecision) return rememberedBy;
    // A durable rule is read again by its answer's record; one kept in memory cannot be revoked.
    const applies =
      request.kind === 'consent' && ports.consentRules
        ? {
            taskId: request.taskId,
            profile: request.profile,
            toolKey: request.toolKey,
            command: request.command,
            setBy: rememberedBy,
          }
        : undefined;
    try {
      await ports.recordDecision(toView(planned.state), undefined, applies, withdrawn);
      return rememberedBy;
    } catch (error) {
      if (error instanceof ConsentRuleGone) {
        // Revoked (or its person left) since the lookup: the person is asked, as intended.
        logger.info({ request_id: request.id }, 'user_input.rule_gone_before_its_answer');
      } else if (error instanceof AnswerWithdrawn) {
        // The person stopped the turn meanwhile: the caller refuses it, as any withdrawn call.
        logger.info({ request_id: request.id }, 'user_input.rule_answer_withdrawn');
      } else {
        logger.error({ request_id: request.id, err: error }, 'user_input.rule_answer_not_recorded');
      }
      return null;
    }
  }

  function applyAnswer(id: string, event: UserInputEvent): UserInputRespondResult {
    const result = dispatch(id, event);
    // Only a request another replica took over while the decision was kept gets here ignored.
    if ('ignored' in result) return { ok: false, code: respondCode(result.ignored) };
    return { ok: true, request: toView(result.state) };
  }

  function liveIds(predicate: (state: LiveState) => boolean): string[] {
    return [...live].filter(([, state]) => predicate(state)).map(([id]) => id);
  }

  function settleWhere(predicate: (state: LiveState) => boolean, cause: DeleteCause): number {
    let settled = 0;
    for (const id of liveIds(predicate)) {
      if (!('ignored' in dispatch(id, { type: 'sessionDeleted', cause }))) settled += 1;
    }
    return settled;
  }

  function sweepCall(id: string): void {
    dispatch(id, { type: 'agentCallAborted' });
  }

  /** The call's connection closed: swept once the turn that asked ends (`LostCalls`). */
  function callLost(id: string, withAgent: boolean): void {
    const state = live.get(id);
    // Its turn already ended (an action outlives it): no end is coming to say why. When the
    // connection was the agent process's own, the agent is gone: that is why.
    if (state?.status === 'awaiting' && state.turnEnded && withAgent) {
      dispatch(id, { type: 'agentConnectionClosed' });
      return;
    }
    if (state?.status !== 'awaiting' || state.turnEnded) {
      sweepCall(id);
      return;
    }
    lostCalls.wait(id, state.request.sessionId, () => {
      sweepCall(id);
    });
  }

  function watchCall(
    id: string,
    { signal, connectionLost, lostWithAgent, turnEnd }: RequestInput,
  ): void {
    const pending = answers.get(id);
    if (!pending) return;
    const onWithdrawn = () => {
      sweepCall(id);
    };
    const onLost = () => {
      callLost(id, lostWithAgent === true);
    };
    // Its turn ended while its copy was kept: that end settled only what was open then. Opened
    // first, so its copy is forgotten as any swept request's is.
    if (signal?.aborted || turnEnd?.aborted) onWithdrawn();
    else if (connectionLost?.aborted) onLost();
    else {
      signal?.addEventListener('abort', onWithdrawn, { once: true });
      connectionLost?.addEventListener('abort', onLost, { once: true });
      pending.detach = () => {
        signal?.removeEventListener('abort', onWithdrawn);
        connectionLost?.removeEventListener('abort', onLost);
      };
    }
  }

  function onQueueItem(
    sessionId: string | null,
    requestId: string,
    event: UserInputEvent,
  ): QueueItemResult {
    const state = stateOf(requestId);
    if (state.status === 'absent') return { ok: false, code: 'not_found' };
    if (sessionId !== null && state.request.sessionId !== sessionId) {
      return { ok: false, code: 'not_found' };
    }
    return queueResult(dispatch(requestId, event));
  }

  return {
    request(input) {
      if (closed) return failure('shutting_down');
      const problems = requestInputProblems(input);
      if (problems.length > 0) return failure('invalid_request', problems.join('; '));
      // Counted before anything exists, in this synchronous call: no two requests race past it.
      const held = openRequestsOf(input.sessionId);
      if (held >= openLimit) return tooManyOpenRequests(held, openLimit);
      const id = ports.ids.next();
      if (stateOf(id).status !== 'absent')
        throw new Error(`user-input request ${id} already exists`);
      const request = buildRequest(id, input, ports.clock.nowMs(), waitFor);
      let resolve: (outcome: AgentOutcome) => void = () => {};
      const outcome = new Promise<AgentOutcome>((settle) => {
        resolve = settle;
      });
      answers.set(id, { sessionId: input.sessionId, resolve, detach: () => {} });
      const open = (rememberedBy: Responder | null) => {
        if (request.kind === 'consent' && request.toolCallId !== null) {
          const { sessionId, toolCallId } = request;
          const older = liveIds(
            (state) =>
              state.status === 'awaiting' &&
              state.request.kind === 'consent' &&
              state.request.sessionId === sessionId &&
              state.request.toolCallId === toolCallId,
          );
          for (const olderId of older) dispatch(olderId, { type: 'superseded' });
        }
        dispatch(id, { type: 'requested', request, rememberedBy });
        // Its turn ended after the caller read it running, before this opened: that end is its own.
        const missed =
          input.kind === 'action' && !input.outsideTurn ? input.turnEndSinceCheck : undefined;
        // An agent that exited meanwhile is gone: said with a note, as no turn's end named it.
        if (missed?.outcome === 'agent_exited') dispatch(id, { type: 'agentConnectionClosed' });
        else if (missed?.outcome !== undefined) {
          dispatch(id, { type: 'turnEnded', outcome: missed.outcome });
        }
        watchCall(id, input);
      };
      // One a person will be asked opens once its copy is kept; a close meanwhile refuses it.
      const openKept = (rememberedBy: Responder | null) => {
        // Its turn ended, or the agent's call was withdrawn (the person's Stop cancels it), before
        // anyone could be asked: nobody is, nothing is kept, and no standing "always" answers it:
        // a tool must not run on a rule once the person stopped the turn.
        if (input.turnEnd?.aborted || input.signal?.aborted) {
          answer(id, { kind: 'refused', reason: 'swept' });
          return;
        }
        if (rememberedBy) {
          // A shutdown ending the turn meanwhile does not withdraw it: the agent hears the row.
          void keptRuleAnswer(request, rememberedBy, input.signal).then((kept) => {
            // Its line is kept: the agent hears what it says, as with a person's decision kept
            // across a close (`judge`), never a refusal beside an "allowed by rule" row.
            if (kept) open(kept);
            else if (closed) answer(id, { kind: 'refused', reason: 'swept' });
            else openKept(null);
          });
          return;
        }
        if (!ports.keepOpen) {
          open(null);
          return;
        }
        void keptCopy(request).then(() => {
          if (closed) answer(id, { kind: 'refused', reason: 'swept' });
          else open(null);
        });
      };
      const rules = ports.consentRules;
      if (request.kind !== 'consent') {
        openKept(null);
      } else if (!rules) {
        openKept(alwaysAllowed.get(alwaysKey(request)) ?? null);
      } else {
        // The request exists once its rule is known; a close meanwhile refuses it like a sweep.
        void standingRule(rules, request)
          .then((rememberedBy) => {
            if (closed) answer(id, { kind: 'refused', reason: 'swept' });
            else openKept(rememberedBy);
          })
          .catch((error: unknown) => {
            logger.error({ request_id: id, err: error }, 'user_input.request_open_failed');
            answer(id, { kind: 'refused', reason: 'swept' });
          });
      }
      return { ok: true, id, outcome };
    },

    respond(requestId, response, responder) {
      return judging.run(requestId, () => judge(requestId, response, responder));
    },

    get(requestId) {
      const state = stateOf(requestId);
      return state.status === 'absent' ? undefined : toView(state);
    },

    snapshot(visibleSessionIds) {
      return [...live.values()]
        .filter((state) => !visibleSessionIds || visibleSessionIds.has(state.request.sessionId))
        .map(toView);
    },

    pendingActionOf(sessionId) {
      return mostBlocking(
        [...live.values()]
          .filter((state) => state.status === 'awaiting' && state.request.sessionId === sessionId)
          .map((state) => state.request.kind),
      );
    },

    turnEnded(sessionId, outcome) {
      const watched = nextTurnEnds.get(sessionId);
      if (watched) {
        watched.outcome = outcome;
        nextTurnEnds.delete(sessionId);
      }
      for (const id of liveIds((state) => state.request.sessionId === sessionId)) {
        dispatch(id, { type: 'turnEnded', outcome });
      }
      // After the end itself: one it ended (the agent exited) ignores the sweep.
      for (const id of lostCalls.endTurn(sessionId)) sweepCall(id);
    },

    nextTurnEnd(sessionId) {
      let watched = nextTurnEnds.get(sessionId);
      if (!watched) {
        watched = { outcome: undefined };
        // Nothing is kept once closed: no turn's end is heard after that.
        if (!closed) nextTurnEnds.set(sessionId, watched);
      }
      return watched;
    },

    endedByTurnEnd(sessionId, outcome) {
      return [...live].flatMap(([id, state]) => {
        if (state.status !== 'awaiting' || state.request.sessionId !== sessionId) return [];
        // A person's decision being kept comes first: it will not end unanswered.
        if (held.has(id)) return [];
        const planned = transition(state, { type: 'turnEnded', outcome });
        if ('ignored' in planned || planned.state.status !== 'settled') return [];
        lostCalls.named(id);
        // Its note is written now: from here an answer is refused as once it ends.
        dispatch(id, { type: outcome === 'agent_exited' ? 'agentExitNamed' : 'stopNamed' });
        return [toView(state)];
      });
    },

    supersede(requestId) {
      return !('ignored' in dispatch(requestId, { type: 'superseded' }));
    },

    sessionDeleted(sessionId) {
      nextTurnEnds.delete(sessionId);
      return settleWhere((state) => state.request.sessionId === sessionId, 'session_deleted');
    },

    forgetSession(sessionId) {
      nextTurnEnds.delete(sessionId);
      const ids = [...live.keys()].filter((id) => live.get(id)?.request.sessionId === sessionId);
      for (const id of ids) {
        live.delete(id);
        for (const map of [deadlines, retries, attemptTimeouts]) stopTimer(map, id);
        lostCalls.forget(id);
        if (answers.has(id)) answer(id, { kind: 'refused', reason: 'swept' });
      }
      return ids.length;
    },

    taskDeleted(taskId) {
      return settleWhere((state) => state.request.taskId === taskId, 'task_deleted');
    },

    reset() {
      return settleWhere(() => true, 'reset');
    },

    queuedFollowUps(sessionId) {
      return [...live.values()]
        .filter((state) => state.request.sessionId === sessionId)
        .filter(isQueued)
        .map(toQueueItem);
    },

    claimQueued(sessionId, requestId) {
      return onQueueItem(sessionId, requestId, { type: 'queueItemClaimed' });
    },

    reject(requestId) {
      return onQueueItem(null, requestId, { type: 'queueItemRemoved' });
    },

    restoreQueued(requestId) {
      return onQueueItem(null, requestId, { type: 'queueClaimReleased' });
    },

    async drain(sessionId) {
      const running = () =>
        [...inFlight].flatMap(([work, of]) =>
          sessionId === undefined || of === sessionId ? [work] : [],
        );
      for (let works = running(); works.length > 0; works = running()) await Promise.all(works);
    },

    close() {
      if (closed) return;
      closed = true;
      nextTurnEnds.clear();
      settleWhere(() => true, 'shutdown');
      for (const map of [deadlines, retries, attemptTimeouts]) {
        for (const handle of map.values()) handle.cancel();
        map.clear();
      }
      lostCalls.close();
    },
  };
}
