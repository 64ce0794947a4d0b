import { describe, expect, it } from 'vitest';
import { followUpText, rejectFollowUpText, retryDelayMs, transition } from './transition.js';
import {
  ACTION_DEADLINE_MS,
  CONSENT_DEADLINE_MS,
  FOLLOW_UP_BUSY_RECHECK_MS,
  type ActionRequest,
  type ConsentRequest,
  type DueState,
  type RequestState,
  type Responder,
  type SettlementReason,
  type TransitionResult,
  type UserInputCommand,
  type UserInputEvent,
  type UserInputState,
} from './types.js';

const T0 = 1_767_225_600_000;

const consent: ConsentRequest = {
  id: 'req-1',
  kind: 'consent',
  sessionId: 'session-1',
  taskId: 'task-1',
  createdAtMs: T0,
  deadlineAtMs: T0 + CONSENT_DEADLINE_MS,
  profile: 'demo',
  toolKey: 'execute:rm',
  command: 'Run rm -rf build',
  title: 'Run rm -rf build',
  toolCallId: 'call-1',
  details: [],
  options: [
    { option_id: 'allow', label: 'Allow once', kind: 'allow_once' },
    { option_id: 'always', label: 'Always allow', kind: 'allow_always' },
    { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
    { option_id: 'never', label: 'Never', kind: 'reject_always' },
  ],
};
const rejectOnly: ConsentRequest = {
  ...consent,
  options: [{ option_id: 'reject', label: 'Reject', kind: 'reject_once' }],
};
const action: ActionRequest = {
  id: 'req-2',
  kind: 'action',
  sessionId: 'session-1',
  taskId: 'task-1',
  createdAtMs: T0,
  deadlineAtMs: T0 + ACTION_DEADLINE_MS,
  title: 'Connect GitHub',
  instructions: 'Open the link and authorise the app.',
  url: 'https://example.test/connect',
  followUp: true,
};

const ADA: Responder = { user_id: 'user-1', name: 'Ada', surface: 'web' };

const due = (overrides: Partial<DueState>): DueState =>
  ({
    status: 'due',
    kind: 'action',
    request: action,
    revision: 4,
    decision: 'done',
    respondedBy: ADA,
    followUpText: followUpText('done', action.title),
    phase: 'waiting',
    attempts: 2,
    failures: 2,
    last: 'failed',
    ...overrides,
  }) as DueState;
const REASON = 'Use the staging bucket instead';
const settled = (reason: SettlementReason): RequestState => ({
  status: 'settled',
  request: action,
  revision: 5,
  reason,
  answer: null,
});

const STATES = {
  absent: { status: 'absent' },
  awaitingConsent: { status: 'awaiting', request: consent, revision: 1, turnEnded: false },
  awaitingAction: { status: 'awaiting', request: action, revision: 1, turnEnded: false },
  awaitingActionAfterTurn: { status: 'awaiting', request: action, revision: 2, turnEnded: true },
  exitNamedConsent: {
    status: 'awaiting',
    request: consent,
    revision: 1,
    turnEnded: false,
    ending: 'agent_exited',
  },
  exitNamedAction: {
    status: 'awaiting',
    request: action,
    revision: 2,
    turnEnded: true,
    ending: 'agent_exited',
  },
  stopNamedConsent: {
    status: 'awaiting',
    request: consent,
    revision: 1,
    turnEnded: false,
    ending: 'swept',
  },
  armed: {
    status: 'armed',
    kind: 'action',
    request: action,
    revision: 2,
    decision: 'skip',
    respondedBy: ADA,
    followUpText: followUpText('skip', action.title),
  },
  armedConsent: {
    status: 'armed',
    kind: 'consent',
    request: consent,
    option_id: 'reject',
    reason: REASON,
    revision: 2,
    respondedBy: ADA,
    followUpText: rejectFollowUpText(consent.title, REASON),
  },
  dueConsentWaiting: {
    status: 'due',
    kind: 'consent',
    request: consent,
    option_id: 'never',
    reason: REASON,
    revision: 4,
    respondedBy: ADA,
    followUpText: rejectFollowUpText(consent.title, REASON),
    phase: 'waiting',
    attempts: 2,
    failures: 2,
    last: 'failed',
  },
  dueAttempting: due({ phase: 'attempting', failures: 1 }),
  dueWaiting: due({}),
  dueWaitingBusy: due({ attempts: 1, failures: 0, last: 'busy' }),
  dueClaimed: due({ phase: 'claimed' }),
  settledHuman: settled('human'),
  settledTimedOut: settled('timed_out'),
  settledSwept: settled('swept'),
  settledAgentExited: settled('agent_exited'),
  settledSuperseded: settled('superseded'),
  settledDispatched: settled('dispatched'),
  settledRejected: settled('rejected'),
} satisfies Record<string, UserInputState>;
type StateName = keyof typeof STATES;

const EVENTS = {
  requestedConsent: { type: 'requested', request: consent, rememberedBy: null },
  requestedRemembered: { type: 'requested', request: consent, rememberedBy: ADA },
  requestedRememberedNoAllow: { type: 'requested', request: rejectOnly, rememberedBy: ADA },
  requestedAction: { type: 'requested', request: action, rememberedBy: null },
  pickedAllowOnce: { type: 'humanResponded', response: { option_id: 'allow' }, responder: ADA },
  pickedAllowAlways: { type: 'humanResponded', response: { option_id: 'always' }, responder: ADA },
  pickedReject: { type: 'humanResponded', response: { option_id: 'reject' }, responder: ADA },
  pickedUnknown: { type: 'humanResponded', response: { option_id: 'nope' }, responder: ADA },
  pickedRejectWithReason: {
    type: 'humanResponded',
    response: { option_id: 'never', reason: REASON },
    responder: ADA,
  },
  pickedAllowWithReason: {
    type: 'humanResponded',
    response: { option_id: 'allow', reason: REASON },
    responder: ADA,
  },
  decidedDone: { type: 'humanResponded', response: { decision: 'done' }, responder: ADA },
  decidedSkip: { type: 'humanResponded', response: { decision: 'skip' }, responder: ADA },
  deadlinePassed: { type: 'deadlinePassed' },
  turnNormal: { type: 'turnEnded', outcome: 'normal' },
  turnCancelled: { type: 'turnEnded', outcome: 'cancelled' },
  turnFailed: { type: 'turnEnded', outcome: 'failed' },
  turnAgentExited: { type: 'turnEnded', outcome: 'agent_exited' },
  agentExitNamed: { type: 'agentExitNamed' },
  stopNamed: { type: 'stopNamed' },
  agentCallAborted: { type: 'agentCallAborted' },
  agentConnectionClosed: { type: 'agentConnectionClosed' },
  superseded: { type: 'superseded' },
  accepted1: { type: 'dispatchAccepted', attempt: 1 },
  accepted2: { type: 'dispatchAccepted', attempt: 2 },
  accepted3: { type: 'dispatchAccepted', attempt: 3 },
  busy1: { type: 'dispatchBusy', attempt: 1 },
  busy2: { type: 'dispatchBusy', attempt: 2 },
  refused2: { type: 'dispatchRefused', attempt: 2 },
  failed1: { type: 'dispatchFailed', attempt: 1 },
  failed2: { type: 'dispatchFailed', attempt: 2 },
  retryTimerElapsed: { type: 'retryTimerElapsed' },
  queueItemClaimed: { type: 'queueItemClaimed' },
  queueClaimReleased: { type: 'queueClaimReleased' },
  queueItemRemoved: { type: 'queueItemRemoved' },
  sessionDeleted: { type: 'sessionDeleted', cause: 'session_deleted' },
} satisfies Record<string, UserInputEvent>;
type EventName = keyof typeof EVENTS;
const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
const STATE_NAMES = Object.keys(STATES) as StateName[];

/** Expected result: `status` or `status:phase|reason` when applied, `!reason` when ignored. */
type Expected = string;
type Row = Record<EventName, Expected>;

const REQUESTS: EventName[] = [
  'requestedConsent',
  'requestedRemembered',
  'requestedRememberedNoAllow',
  'requestedAction',
];
const PICKS: EventName[] = [
  'pickedAllowOnce',
  'pickedAllowAlways',
  'pickedReject',
  'pickedUnknown',
  'pickedRejectWithReason',
  'pickedAllowWithReason',
];
const RESPONSES: EventName[] = [...PICKS, 'decidedDone', 'decidedSkip'];
const TURNS: EventName[] = ['turnNormal', 'turnCancelled', 'turnFailed', 'turnAgentExited'];
const DISPATCH_RESULTS: EventName[] = ['busy1', 'busy2', 'refused2', 'failed1', 'failed2'];
const DISPATCH: EventName[] = ['accepted1', 'accepted2', 'accepted3', ...DISPATCH_RESULTS];
const QUEUE: EventName[] = [
  'retryTimerElapsed',
  'queueItemClaimed',
  'queueClaimReleased',
  'queueItemRemoved',
];

function row(fill: Expected, overrides: Partial<Row>): Row {
  const base = Object.fromEntries(EVENT_NAMES.map((name) => [name, fill])) as Row;
  return { ...base, ...overrides };
}
function same(names: EventName[], expected: Expected): Partial<Row> {
  return Object.fromEntries(names.map((name) => [name, expected]));
}

const liveBase: Partial<Row> = {
  ...same(REQUESTS, '!duplicate_request'),
  sessionDeleted: 'settled|swept',
};
const awaitingBase: Partial<Row> = {
  ...liveBase,
  deadlinePassed: 'settled|timed_out',
  agentCallAborted: 'settled|swept',
  // The agent process's connection closed: nobody decided, and the agent is gone.
  agentConnectionClosed: 'settled|agent_exited',
  superseded: 'settled|superseded',
  ...same(['turnCancelled', 'turnFailed'], 'settled|swept'),
  // Nobody decided and the agent is gone: said apart from a sweep.
  turnAgentExited: 'settled|agent_exited',
  agentExitNamed: 'awaiting:ending',
  stopNamed: 'awaiting:ending',
  ...same([...DISPATCH, ...QUEUE], '!not_due'),
};
// Its turn's end wrote that nobody answered: nobody may now, and that end settles it so.
const exitNamedRow: Partial<Row> = {
  ...awaitingBase,
  ...same(RESPONSES, '!agent_exited'),
  ...same(TURNS, 'settled|agent_exited'),
  ...same(['agentExitNamed', 'stopNamed'], '!already_named'),
};
// As an exit's, for a person's Stop: refused as once settled, and settled as swept by any end.
const stopNamedRow: Partial<Row> = {
  ...awaitingBase,
  ...same(RESPONSES, '!already_settled'),
  ...same(TURNS, 'settled|swept'),
  agentConnectionClosed: 'settled|swept',
  ...same(['agentExitNamed', 'stopNamed'], '!already_named'),
};
const answeredBase: Partial<Row> = {
  ...liveBase,
  ...same(RESPONSES, '!already_answered'),
  deadlinePassed: '!deadline_not_running',
  agentCallAborted: '!already_answered',
  agentConnectionClosed: '!already_answered',
  superseded: '!already_answered',
  agentExitNamed: '!already_answered',
  stopNamed: '!already_answered',
};
const dueBase: Partial<Row> = {
  ...answeredBase,
  accepted1: 'settled|dispatched',
  accepted2: 'settled|dispatched',
  accepted3: '!stale_attempt',
  ...same(DISPATCH_RESULTS, '!no_dispatch_in_flight'),
};
const dueWaitingRow: Partial<Row> = {
  ...dueBase,
  ...same(TURNS, 'due:attempting'),
  retryTimerElapsed: 'due:attempting',
  queueItemClaimed: 'due:claimed',
  queueClaimReleased: '!not_claimed',
  queueItemRemoved: 'settled|rejected',
};

const armedRow: Partial<Row> = {
  ...answeredBase,
  turnNormal: 'due:attempting',
  // A person decided: the agent's exit does not make it unanswered.
  ...same(['turnCancelled', 'turnFailed', 'turnAgentExited'], 'settled|swept'),
  ...same([...DISPATCH, ...QUEUE], '!not_due'),
};

const settledRow = row('!already_settled', same(REQUESTS, '!duplicate_request'));

const TABLE: Record<StateName, Row> = {
  absent: row('!unknown_request', {
    requestedConsent: 'awaiting',
    requestedRemembered: 'settled|human',
    requestedRememberedNoAllow: 'awaiting',
    requestedAction: 'awaiting',
  }),
  awaitingConsent: row('?', {
    ...awaitingBase,
    ...same(['pickedAllowOnce', 'pickedAllowAlways', 'pickedReject'], 'settled|human'),
    pickedUnknown: '!unknown_option',
    pickedRejectWithReason: 'armed',
    pickedAllowWithReason: '!reason_without_reject',
    ...same(['decidedDone', 'decidedSkip'], '!response_kind_mismatch'),
    turnNormal: 'settled|swept',
  }),
  awaitingAction: row('?', {
    ...awaitingBase,
    ...same(PICKS, '!response_kind_mismatch'),
    ...same(['decidedDone', 'decidedSkip'], 'armed'),
    turnNormal: 'awaiting',
  }),
  awaitingActionAfterTurn: row('?', {
    ...awaitingBase,
    ...same(PICKS, '!response_kind_mismatch'),
    ...same(['decidedDone', 'decidedSkip'], 'due:attempting'),
    // Its own turn ended: a later turn's end, however it ends, is not its own.
    ...same([...TURNS, 'agentExitNamed', 'stopNamed'], '!turn_already_ended'),
  }),
  exitNamedConsent: row('?', exitNamedRow),
  exitNamedAction: row('?', exitNamedRow),
  stopNamedConsent: row('?', stopNamedRow),
  armed: row('?', armedRow),
  armedConsent: row('?', armedRow),
  dueConsentWaiting: row('?', dueWaitingRow),
  dueAttempting: row('?', {
    ...dueBase,
    ...same(TURNS, '!dispatch_in_flight'),
    busy1: '!stale_attempt',
    failed1: '!stale_attempt',
    busy2: 'due:waiting',
    failed2: 'due:waiting',
    refused2: 'settled|rejected',
    retryTimerElapsed: '!dispatch_in_flight',
    queueItemClaimed: '!dispatch_in_flight',
    queueClaimReleased: '!not_claimed',
    queueItemRemoved: '!dispatch_in_flight',
  }),
  dueWaiting: row('?', dueWaitingRow),
  dueWaitingBusy: row('?', { ...dueWaitingRow, accepted2: '!stale_attempt' }),
  dueClaimed: row('?', {
    ...dueBase,
    ...same(TURNS, '!claimed_for_removal'),
    retryTimerElapsed: '!claimed_for_removal',
    queueItemClaimed: '!already_claimed',
    queueClaimReleased: 'due:waiting',
    queueItemRemoved: 'settled|rejected',
  }),
  settledHuman: settledRow,
  settledTimedOut: settledRow,
  settledSwept: settledRow,
  settledAgentExited: settledRow,
  settledSuperseded: settledRow,
  settledDispatched: settledRow,
  settledRejected: settledRow,
};

function describeResult(result: TransitionResult): Expected {
  if ('ignored' in result) return `!${result.ignored}`;
  const { state } = result;
  if (state.status === 'due') return `due:${state.phase}`;
  if (state.status === 'settled') return `settled|${state.reason}`;
  if (state.status === 'awaiting' && state.ending) return 'awaiting:ending';
  return state.status;
}

const types = (commands: UserInputCommand[]) => commands.map((command) => command.type);

/** Properties every applied transition must have, whatever the pair. */
function checkInvariants(before: UserInputState, event: UserInputEvent, result: TransitionResult) {
  if ('ignored' in result) return;
  const { state, commands } = result;
  if (event.type === 'agentExitNamed' || event.type === 'stopNamed') {
    // No view shows it: the same revision, nothing published, nothing else done.
    const ending = event.type === 'agentExitNamed' ? 'agent_exited' : 'swept';
    expect(state).toEqual({ ...before, ending });
    expect(commands).toEqual([]);
    return;
  }
  const publishes = commands.filter((command) => command.type === 'publishChanged');
  const expectedRevision = before.status === 'absent' ? 1 : before.revision + 1;
  expect(state.revision).toBe(expectedRevision);
  expect(publishes).toEqual([{ type: 'publishChanged', revision: expectedRevision }]);
  const answersAgent = commands.filter((command) => command.type === 'answerAgent').length;
  const agentWaiting = before.status === 'awaiting' || before.status === 'absent';
  const leavesAwaiting = agentWaiting && state.status !== 'awaiting';
  expect(answersAgent).toBe(leavesAwaiting ? 1 : 0);
  if (before.status === 'awaiting' && state.status !== 'awaiting') {
    expect(types(commands).includes('cancelDeadline')).toBe(event.type !== 'deadlinePassed');
  }
  const dispatches = commands.filter((command) => command.type === 'dispatchFollowUp');
  if (state.status === 'due' && state.phase === 'attempting') {
    expect(dispatches).toEqual([
      {
        type: 'dispatchFollowUp',
        sessionId: state.request.sessionId,
        text: state.followUpText,
        attempt: state.attempts,
      },
    ]);
  } else {
    expect(dispatches).toEqual([]);
  }
  const retries = types(commands).filter((type) => type === 'scheduleRetry');
  expect(retries.length).toBe(state.status === 'due' && state.phase === 'waiting' ? 1 : 0);
  if (before.status === 'due' && before.phase === 'waiting' && !isWaiting(state)) {
    expect(types(commands).includes('cancelRetry')).toBe(event.type !== 'retryTimerElapsed');
  }
  if (state.status === 'settled') {
    expect(types(commands)).not.toContain('startDeadline');
  }
}
const isWaiting = (state: RequestState) => state.status === 'due' && state.phase === 'waiting';

describe('transition: every state × every event', () => {
  const pairs = STATE_NAMES.flatMap((stateName) =>
    EVENT_NAMES.map((eventName) => [stateName, eventName] as const),
  );

  it('has an expectation for every pair', () => {
    expect(pairs.length).toBe(STATE_NAMES.length * EVENT_NAMES.length);
    for (const [stateName, eventName] of pairs) {
      expect(TABLE[stateName][eventName], `${stateName} × ${eventName}`).not.toBe('?');
    }
  });

  it.each(pairs)('%s × %s', (stateName, eventName) => {
    const before = STATES[stateName];
    const event = EVENTS[eventName];
    const result = transition(before, event);
    expect(describeResult(result)).toBe(TABLE[stateName][eventName]);
    checkInvariants(before, event, result);
  });
});

function apply(state: UserInputState, event: UserInputEvent) {
  const result = transition(state, event);
  if ('ignored' in result) throw new Error(`ignored: ${result.ignored}`);
  return result;
}

/** Each event's result in turn, from `start`: what an ignored one leaves stays. */
function replay(start: UserInputState, events: EventName[]): string[] {
  let state = start;
  return events.map((name) => {
    const result = transition(state, EVENTS[name]);
    if (!('ignored' in result)) state = result.state;
    return describeResult(result);
  });
}

describe('transition: commands of the rules', () => {
  it('a human reject is a selected option, a timeout a refusal', () => {
    const rejected = apply(STATES.awaitingConsent, EVENTS.pickedReject);
    expect(rejected.commands).toContainEqual({
      type: 'answerAgent',
      outcome: {
        kind: 'selected',
        option_id: 'reject',
        option_kind: 'reject_once',
        remembered: false,
      },
    });
    const timedOut = apply(STATES.awaitingConsent, EVENTS.deadlinePassed);
    expect(timedOut.commands).toContainEqual({
      type: 'answerAgent',
      outcome: { kind: 'refused', reason: 'timed_out' },
    });
  });

  it('allow always is remembered per profile and tool, and a remembered request needs nobody', () => {
    const always = apply(STATES.awaitingConsent, EVENTS.pickedAllowAlways);
    expect(always.commands).toContainEqual({
      type: 'rememberAlways',
      taskId: 'task-1',
      profile: 'demo',
      toolKey: 'execute:rm',
      command: 'Run rm -rf build',
      setBy: ADA,
    });
    expect(types(apply(STATES.awaitingConsent, EVENTS.pickedAllowOnce).commands)).not.toContain(
      'rememberAlways',
    );
    const remembered = apply(STATES.absent, EVENTS.requestedRemembered);
    expect(remembered.commands).toEqual([
      { type: 'publishChanged', revision: 1 },
      {
        type: 'answerAgent',
        // Allow once: the agent keeps no grant of its own, so a revoke counts at the next consent.
        outcome: {
          kind: 'selected',
          option_id: 'allow',
          option_kind: 'allow_once',
          remembered: true,
        },
      },
    ]);
    // The remembered answer names the person whose "always" it was.
    expect(remembered.state).toMatchObject({
      answer: { kind: 'option', option_id: 'allow', remembered: true, respondedBy: ADA },
    });
  });

  it('a rule never picks the agent’s own "always": without an allow-once a person is asked', () => {
    const alwaysOnly: ConsentRequest = {
      ...consent,
      options: consent.options.filter((option) => option.kind !== 'allow_once'),
    };
    const asked = apply(STATES.absent, {
      type: 'requested',
      request: alwaysOnly,
      rememberedBy: ADA,
    });
    expect(asked.state).toMatchObject({ status: 'awaiting' });
    expect(types(asked.commands)).not.toContain('answerAgent');
  });

  it('keeps who decided through arming, the follow-up and its settlement', () => {
    const armed = apply(STATES.awaitingAction, EVENTS.decidedDone);
    expect(armed.state).toMatchObject({ status: 'armed', respondedBy: ADA });
    const dueNow = apply(armed.state, EVENTS.turnNormal);
    expect(dueNow.state).toMatchObject({ status: 'due', respondedBy: ADA });
    const dispatched = apply(dueNow.state, { type: 'dispatchAccepted', attempt: 1 });
    expect(dispatched.state).toMatchObject({
      status: 'settled',
      answer: { kind: 'decision', decision: 'done', respondedBy: ADA },
    });
  });

  it('a new request starts its deadline', () => {
    expect(apply(STATES.absent, EVENTS.requestedConsent).commands[0]).toEqual({
      type: 'startDeadline',
      afterMs: CONSENT_DEADLINE_MS,
    });
    expect(apply(STATES.absent, EVENTS.requestedAction).commands[0]).toEqual({
      type: 'startDeadline',
      afterMs: ACTION_DEADLINE_MS,
    });
  });

  it('an answered action arms its follow-up and answers the agent', () => {
    const armed = apply(STATES.awaitingAction, EVENTS.decidedDone);
    expect(armed.state).toMatchObject({
      status: 'armed',
      followUpText: 'Continue. I have completed: Connect GitHub',
    });
    expect(armed.commands).toEqual([
      { type: 'cancelDeadline' },
      { type: 'publishChanged', revision: 2 },
      { type: 'answerAgent', outcome: { kind: 'decided', decision: 'done' } },
    ]);
    const skipped = apply(STATES.awaitingAction, EVENTS.decidedSkip);
    expect(skipped.state).toMatchObject({
      followUpText: 'I skipped: Connect GitHub. Continue without it.',
    });
  });

  it('an action without a follow-up (a URL elicitation) settles on the answer and only answers the agent', () => {
    const state = { ...STATES.awaitingAction, request: { ...action, followUp: false } };
    const settled = apply(state, EVENTS.decidedDone);
    expect(settled.state).toMatchObject({ status: 'settled', reason: 'human' });
    expect(settled.commands).toEqual([
      { type: 'cancelDeadline' },
      { type: 'publishChanged', revision: 2 },
      { type: 'answerAgent', outcome: { kind: 'decided', decision: 'done' } },
    ]);
  });

  it('a URL elicitation answered after its turn ended goes as a follow-up: no waiting call hears it', () => {
    const state = {
      ...STATES.awaitingActionAfterTurn,
      request: { ...action, followUp: false },
    };
    const due = apply(state, EVENTS.decidedDone);
    expect(due.state).toMatchObject({ status: 'due', phase: 'attempting' });
    expect(due.commands).toContainEqual(
      expect.objectContaining({
        type: 'dispatchFollowUp',
        text: 'Continue. I have completed: Connect GitHub',
      }),
    );
  });

  it('an action asked between turns waits as after its turn: its Done is due at once', () => {
    const asked = apply(
      { status: 'absent' },
      {
        type: 'requested',
        request: { ...action, outsideTurn: true },
        rememberedBy: null,
      },
    );
    expect(asked.state).toMatchObject({ status: 'awaiting', turnEnded: true });
    const due = apply(asked.state, EVENTS.decidedDone);
    expect(due.state).toMatchObject({ status: 'due', phase: 'attempting' });
    // A later turn's end is not its own: cancelling the person's next message does not end it.
    expect(transition(asked.state, EVENTS.turnCancelled)).toEqual({
      ignored: 'turn_already_ended',
    });
  });

  it('a Skip carries the person’s reason to the agent, its follow-up and, once settled, its view', () => {
    const event: UserInputEvent = {
      type: 'humanResponded',
      response: { decision: 'skip', reason: 'Der Zugang kommt erst morgen' },
      responder: ADA,
    };
    const armed = apply(STATES.awaitingAction, event);
    expect(armed.state).toMatchObject({
      status: 'armed',
      reason: 'Der Zugang kommt erst morgen',
      followUpText:
        'I skipped: Connect GitHub. Continue without it. My reason: Der Zugang kommt erst morgen',
    });
    expect(armed.commands).toContainEqual({
      type: 'answerAgent',
      outcome: { kind: 'decided', decision: 'skip', reason: 'Der Zugang kommt erst morgen' },
    });
    const due = apply({ ...STATES.awaitingAction, turnEnded: true }, event);
    expect(due.commands).toContainEqual(
      expect.objectContaining({
        type: 'dispatchFollowUp',
        text: 'I skipped: Connect GitHub. Continue without it. My reason: Der Zugang kommt erst morgen',
      }),
    );
    const dueLater = apply(armed.state, EVENTS.turnNormal);
    expect(dueLater.commands).toContainEqual(
      expect.objectContaining({
        type: 'dispatchFollowUp',
        text: 'I skipped: Connect GitHub. Continue without it. My reason: Der Zugang kommt erst morgen',
      }),
    );
    // A Done never carries one, even if a caller of the registry passed it.
    const done = apply(STATES.awaitingAction, {
      type: 'humanResponded',
      response: { decision: 'done', reason: 'ignored' },
      responder: ADA,
    });
    expect(done.state).not.toHaveProperty('reason');
    expect(done.commands).toContainEqual({
      type: 'answerAgent',
      outcome: { kind: 'decided', decision: 'done' },
    });
  });

  it('a normal turn end makes an armed follow-up due and dispatches it', () => {
    const dueNow = apply(STATES.armed, EVENTS.turnNormal);
    expect(dueNow.commands).toEqual([
      { type: 'publishChanged', revision: 3 },
      {
        type: 'dispatchFollowUp',
        sessionId: 'session-1',
        text: 'I skipped: Connect GitHub. Continue without it.',
        attempt: 1,
      },
    ]);
  });

  it('failed attempts back off exponentially, busy ones recheck later', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(retryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    const failed = apply(STATES.dueAttempting, EVENTS.failed2);
    expect(failed.commands).toContainEqual({ type: 'scheduleRetry', afterMs: 2000 });
    expect(failed.state).toMatchObject({ failures: 2, last: 'failed' });
    const busy = apply(STATES.dueAttempting, EVENTS.busy2);
    expect(busy.commands).toContainEqual({
      type: 'scheduleRetry',
      afterMs: FOLLOW_UP_BUSY_RECHECK_MS,
    });
    expect(busy.state).toMatchObject({ failures: 0, last: 'busy' });
    const restored = apply(STATES.dueClaimed, EVENTS.queueClaimReleased);
    expect(restored.commands).toContainEqual({ type: 'scheduleRetry', afterMs: 2000 });
  });

  it('a sweep of an armed action does not answer the agent twice', () => {
    const swept = apply(STATES.armed, EVENTS.turnCancelled);
    expect(types(swept.commands)).toEqual(['publishChanged']);
  });
});

const SETTLING: EventName[] = EVENT_NAMES.filter((name) => !REQUESTS.includes(name));

describe('transition: first settlement wins', () => {
  const live = STATE_NAMES.filter((name) => TABLE[name].sessionDeleted === 'settled|swept');
  const cases = live.flatMap((stateName) =>
    SETTLING.filter((name) => TABLE[stateName][name].startsWith('settled')).flatMap((first) =>
      SETTLING.filter((name) => TABLE[stateName][name].startsWith('settled')).map(
        (second) => [stateName, first, second] as const,
      ),
    ),
  );

  it.each(cases)('%s: %s then %s', (stateName, first, second) => {
    const once = apply(STATES[stateName], EVENTS[first]);
    expect(transition(once.state, EVENTS[second])).toEqual({ ignored: 'already_settled' });
    expect(describeResult(once)).toBe(TABLE[stateName][first]);
  });

  it('human answer against the deadline, either order', () => {
    expect(replay(STATES.awaitingConsent, ['pickedAllowOnce', 'deadlinePassed'])).toEqual([
      'settled|human',
      '!already_settled',
    ]);
    expect(replay(STATES.awaitingConsent, ['deadlinePassed', 'pickedAllowOnce'])).toEqual([
      'settled|timed_out',
      '!already_settled',
    ]);
  });

  it('dispatch accepted against session deleted, either order', () => {
    expect(replay(STATES.dueAttempting, ['accepted2', 'sessionDeleted'])).toEqual([
      'settled|dispatched',
      '!already_settled',
    ]);
    expect(replay(STATES.dueAttempting, ['sessionDeleted', 'accepted2'])).toEqual([
      'settled|swept',
      '!already_settled',
    ]);
  });

  it('queue claim against a turn end starting the item, either order', () => {
    expect(replay(STATES.dueWaiting, ['queueItemClaimed', 'turnNormal'])).toEqual([
      'due:claimed',
      '!claimed_for_removal',
    ]);
    expect(replay(STATES.dueWaiting, ['turnNormal', 'queueItemClaimed'])).toEqual([
      'due:attempting',
      '!dispatch_in_flight',
    ]);
  });

  it('an answered action against its turn being cancelled, either order', () => {
    expect(replay(STATES.awaitingAction, ['decidedDone', 'turnCancelled', 'turnNormal'])).toEqual([
      'armed',
      'settled|swept',
      '!already_settled',
    ]);
    expect(replay(STATES.awaitingAction, ['turnCancelled', 'decidedDone'])).toEqual([
      'settled|swept',
      '!already_settled',
    ]);
  });

  it('a due follow-up survives failed turns and failed attempts until accepted', () => {
    expect(
      replay(STATES.armed, [
        'turnNormal',
        'failed1',
        'turnFailed',
        'busy2',
        'turnCancelled',
        'accepted3',
      ]),
    ).toEqual([
      'due:attempting',
      'due:waiting',
      'due:attempting',
      'due:waiting',
      'due:attempting',
      'settled|dispatched',
    ]);
  });
});

describe('transition: a request its turn’s end names as ended by the agent’s exit', () => {
  it('refuses an answer between the naming and that end, which settles it as the exit', () => {
    expect(
      replay(STATES.awaitingAction, [
        'agentExitNamed',
        'decidedDone',
        'turnAgentExited',
        'decidedDone',
      ]),
    ).toEqual(['awaiting:ending', '!agent_exited', 'settled|agent_exited', '!already_settled']);
    // Without the naming, the same answer would be a decision beside that note.
    expect(replay(STATES.awaitingAction, ['decidedDone'])).toEqual(['armed']);
  });

  it('refuses the answer before judging it, and the end refuses the agent still waiting', () => {
    expect(transition(STATES.exitNamedConsent, EVENTS.pickedUnknown)).toEqual({
      ignored: 'agent_exited',
    });
    const ended = apply(STATES.exitNamedConsent, EVENTS.turnNormal);
    expect(ended.state).toMatchObject({ status: 'settled', reason: 'agent_exited', answer: null });
    expect(ended.commands).toEqual([
      { type: 'cancelDeadline' },
      { type: 'publishChanged', revision: 2 },
      { type: 'answerAgent', outcome: { kind: 'refused', reason: 'swept' } },
    ]);
  });
});

describe('transition: a request its turn’s end names as ended by a person’s Stop', () => {
  it('refuses an answer between the naming and that end, which settles it as swept', () => {
    expect(
      replay(STATES.awaitingConsent, ['stopNamed', 'pickedAllowOnce', 'turnCancelled']),
    ).toEqual(['awaiting:ending', '!already_settled', 'settled|swept']);
    // An exit after the Stop keeps the Stop's note: the request still ends as swept.
    expect(replay(STATES.awaitingConsent, ['stopNamed', 'turnAgentExited'])).toEqual([
      'awaiting:ending',
      'settled|swept',
    ]);
    // Without the naming, the same answer would be a decision beside that note.
    expect(replay(STATES.awaitingConsent, ['pickedAllowOnce'])).toEqual(['settled|human']);
  });
});

describe('transition: a Reject with the person reason', () => {
  it('answers the agent with the reject now and owes the reason as a follow-up after its turn', () => {
    const armed = apply(STATES.awaitingConsent, EVENTS.pickedRejectWithReason);
    expect(armed.state).toMatchObject({
      status: 'armed',
      kind: 'consent',
      option_id: 'never',
      reason: REASON,
      respondedBy: ADA,
      followUpText: `I rejected: Run rm -rf build. My reason: ${REASON}`,
    });
    expect(armed.commands).toEqual([
      { type: 'cancelDeadline' },
      { type: 'publishChanged', revision: 2 },
      {
        type: 'answerAgent',
        outcome: {
          kind: 'selected',
          option_id: 'never',
          option_kind: 'reject_always',
          remembered: false,
        },
      },
    ]);
    const due = apply(armed.state, EVENTS.turnNormal);
    expect(due.commands).toContainEqual({
      type: 'dispatchFollowUp',
      sessionId: 'session-1',
      text: `I rejected: Run rm -rf build. My reason: ${REASON}`,
      attempt: 1,
    });
    const sent = apply(due.state, EVENTS.accepted1);
    expect(sent.state).toMatchObject({
      status: 'settled',
      reason: 'dispatched',
      answer: {
        kind: 'option',
        option_id: 'never',
        remembered: false,
        reason: REASON,
        respondedBy: ADA,
      },
    });
  });

  it('a reason is refused with an allow, and an empty one is no reason', () => {
    expect(transition(STATES.awaitingConsent, EVENTS.pickedAllowWithReason)).toEqual({
      ignored: 'reason_without_reject',
    });
    const plain = apply(STATES.awaitingConsent, {
      type: 'humanResponded',
      response: { option_id: 'reject', reason: '' },
      responder: ADA,
    });
    expect(plain.state).toMatchObject({ status: 'settled', reason: 'human' });
  });

  it('a cancelled turn drops the owed reason but keeps who rejected, and why', () => {
    const swept = apply(STATES.armedConsent, EVENTS.turnCancelled);
    expect(swept.state).toMatchObject({
      status: 'settled',
      reason: 'swept',
      answer: { kind: 'option', option_id: 'reject', reason: REASON, respondedBy: ADA },
    });
    expect(types(swept.commands)).not.toContain('dispatchFollowUp');
  });
});

describe('agentConnectionClosed', () => {
  it('notes a request no turn’s end named, once, and answers the agent that it was swept', () => {
    const result = transition(STATES.awaitingActionAfterTurn, EVENTS.agentConnectionClosed);
    if ('ignored' in result) throw new Error('ignored');
    expect(types(result.commands)).toEqual([
      'cancelDeadline',
      'publishChanged',
      'answerAgent',
      'noteEndedUnanswered',
    ]);
    expect(result.commands).toContainEqual({
      type: 'answerAgent',
      outcome: { kind: 'refused', reason: 'swept' },
    });
  });

  it('leaves the note to the turn’s end that named it', () => {
    const result = transition(STATES.exitNamedAction, EVENTS.agentConnectionClosed);
    if ('ignored' in result) throw new Error('ignored');
    expect(result.state).toMatchObject({ status: 'settled', reason: 'agent_exited' });
    expect(types(result.commands)).not.toContain('noteEndedUnanswered');
  });
});
