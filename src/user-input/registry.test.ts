import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../support/index.js';
import { ClockTimers, fakeClock, sequentialIds } from '../../test/support/fakes.js';
import { ADA, actionInput, consentInput, flush } from '../../test/support/user-input-fixtures.js';
import type { ActionRequestInput, ConsentRequestInput } from './request-input.js';
import type { FollowUpAdmissionInput, UserInputRegistry } from './ports.js';
import { createUserInputRegistry } from './registry.js';
import {
  CONSENT_DEADLINE_MS,
  FOLLOW_UP_ATTEMPT_TIMEOUT_MS,
  FOLLOW_UP_BUSY_RECHECK_MS,
  LOST_CALL_TURN_END_WAIT_MS,
  type AgentOutcome,
  type FollowUpAdmission,
  type UserInputView,
} from './types.js';

type Admit = (input: FollowUpAdmissionInput) => Promise<FollowUpAdmission>;

function setup() {
  const clock = fakeClock();
  const timers = new ClockTimers(clock);
  const published: UserInputView[] = [];
  const admissions: (FollowUpAdmissionInput & { atMs: number })[] = [];
  const logs: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  /** Scripted answers of the admission port, one per call; then `accepted`. */
  const script: Admit[] = [];
  const answered: { id: string; outcome: AgentOutcome }[] = [];
  const log = (level: string) => (fields: Record<string, unknown>, message: string) => {
    logs.push({ level, fields, message });
  };
  const registry: UserInputRegistry = createUserInputRegistry({
    clock,
    ids: sequentialIds('req'),
    timers,
    publish: (view) => published.push(view),
    answerAgent: (id, outcome) => answered.push({ id, outcome }),
    admitFollowUp: (input) => {
      admissions.push({ ...input, atMs: clock.nowMs() });
      const next = script.shift();
      return next ? next(input) : Promise.resolve('accepted');
    },
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
  });
  const viewsOf = (id: string) => published.filter((view) => view.id === id);
  return { clock, timers, published, admissions, logs, script, answered, registry, viewsOf };
}

function open(registry: UserInputRegistry, input: ConsentRequestInput | ActionRequestInput) {
  const result = registry.request(input);
  if (!result.ok) throw new Error(`request refused: ${result.code}`);
  let outcome: AgentOutcome | undefined;
  void result.outcome.then((value) => (outcome = value));
  return { id: result.id, outcome: () => outcome, promise: result.outcome };
}

/** An action answered and its turn ended normally: its first attempt has been made. */
async function dueAction(ctx: ReturnType<typeof setup>, decision: 'done' | 'skip' = 'done') {
  const action = open(ctx.registry, actionInput());
  expect((await ctx.registry.respond(action.id, { decision }, ADA)).ok).toBe(true);
  ctx.registry.turnEnded('session-1', 'normal');
  await flush();
  return action;
}

const failing = (): Admit => () => Promise.reject(new Error('admission unavailable'));
const answering =
  (answer: FollowUpAdmission): Admit =>
  () =>
    Promise.resolve(answer);

describe('consent', () => {
  it('a person allows once: the agent gets the option, the deadline stops', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const awaiting = ctx.registry.get(consent.id);
    expect(awaiting).toMatchObject({ status: 'awaiting', revision: 1, kind: 'consent' });
    expect(awaiting?.deadline_at).toBe(
      formatTimestamp(BigInt(ctx.clock.nowMs() + CONSENT_DEADLINE_MS) * 1_000_000n),
    );
    expect(ctx.registry.pendingActionOf('session-1')).toBe('consent');

    expect(await ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA)).toMatchObject({
      ok: true,
      request: { status: 'settled', settled_reason: 'human', selected_option_id: 'allow' },
    });
    await flush();
    expect(consent.outcome()).toEqual({
      kind: 'selected',
      option_id: 'allow',
      option_kind: 'allow_once',
      remembered: false,
    });
    expect(ctx.timers.active).toBe(0);
    expect(ctx.registry.snapshot()).toEqual([]);
    expect(ctx.registry.pendingActionOf('session-1')).toBeNull();
    expect(ctx.answered).toEqual([{ id: consent.id, outcome: consent.outcome() }]);
  });

  it('a human reject is a selected option; a timeout is a refusal', async () => {
    const ctx = setup();
    const rejected = open(ctx.registry, consentInput());
    await ctx.registry.respond(rejected.id, { option_id: 'reject' }, ADA);
    const timedOut = open(ctx.registry, consentInput());
    ctx.timers.advance(CONSENT_DEADLINE_MS - 1);
    expect(ctx.registry.get(timedOut.id)?.status).toBe('awaiting');
    ctx.timers.advance(1);
    await flush();
    expect(rejected.outcome()).toMatchObject({ kind: 'selected', option_kind: 'reject_once' });
    expect(timedOut.outcome()).toEqual({ kind: 'refused', reason: 'timed_out' });
    expect(ctx.registry.get(timedOut.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'timed_out',
    });
    expect(await ctx.registry.respond(timedOut.id, { option_id: 'allow' }, ADA)).toEqual({
      ok: false,
      code: 'already_settled',
    });
  });

  it('"always" allows the next request for the same profile, tool and command, no other', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    await ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    const again = open(ctx.registry, consentInput());
    const otherTool = open(ctx.registry, consentInput({ toolKey: 'edit' }));
    const otherProfile = open(ctx.registry, consentInput({ profile: 'codex' }));
    const otherCommand = open(ctx.registry, consentInput({ command: 'Run rm -rf /' }));
    await flush();
    expect(again.outcome()).toEqual({
      kind: 'selected',
      option_id: 'allow',
      option_kind: 'allow_once',
      remembered: true,
    });
    expect(ctx.viewsOf(again.id)).toMatchObject([
      { status: 'settled', revision: 1, settled_reason: 'human', remembered: true },
    ]);
    expect(otherTool.outcome()).toBeUndefined();
    expect(otherProfile.outcome()).toBeUndefined();
    expect(otherCommand.outcome()).toBeUndefined();
    expect(ctx.registry.snapshot().map((view) => view.id)).toEqual([
      otherTool.id,
      otherProfile.id,
      otherCommand.id,
    ]);
  });

  it('a newer consent for the same tool call supersedes the older one', async () => {
    const ctx = setup();
    const older = open(ctx.registry, consentInput({ toolCallId: 'call-7' }));
    const newer = open(ctx.registry, consentInput({ toolCallId: 'call-7' }));
    await flush();
    expect(older.outcome()).toEqual({ kind: 'refused', reason: 'superseded' });
    expect(ctx.registry.get(newer.id)?.status).toBe('awaiting');
  });

  it('an aborted agent call sweeps its request', async () => {
    const ctx = setup();
    const controller = new AbortController();
    const consent = open(ctx.registry, consentInput({ signal: controller.signal }));
    controller.abort();
    await flush();
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.timers.active).toBe(0);
  });

  it('respond reports not_found, invalid and already_settled', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const action = open(ctx.registry, actionInput());
    expect(await ctx.registry.respond('req-9999', { option_id: 'allow' }, ADA)).toEqual({
      ok: false,
      code: 'not_found',
    });
    expect((await ctx.registry.respond(consent.id, { decision: 'done' }, ADA)).ok).toBe(false);
    expect(await ctx.registry.respond(consent.id, { option_id: 'nope' }, ADA)).toEqual({
      ok: false,
      code: 'invalid',
    });
    expect(await ctx.registry.respond(action.id, { option_id: 'allow' }, ADA)).toEqual({
      ok: false,
      code: 'invalid',
    });
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    expect(await ctx.registry.respond(action.id, { decision: 'skip' }, ADA)).toEqual({
      ok: false,
      code: 'already_settled',
    });
  });

  it('a Reject with a reason answers the agent now and sends the reason after its turn', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    expect(
      await ctx.registry.respond(consent.id, { option_id: 'allow', reason: 'why' }, ADA),
    ).toEqual({
      ok: false,
      code: 'reason_not_allowed',
    });
    expect(ctx.registry.get(consent.id)).toMatchObject({ status: 'awaiting', revision: 1 });
    expect(
      await ctx.registry.respond(
        consent.id,
        { option_id: 'reject', reason: 'Run the unit tests only' },
        ADA,
      ),
    ).toMatchObject({
      ok: true,
      request: { status: 'armed', selected_option_id: 'reject', reason: 'Run the unit tests only' },
    });
    await flush();
    expect(consent.outcome()).toEqual({
      kind: 'selected',
      option_id: 'reject',
      option_kind: 'reject_once',
      remembered: false,
    });
    expect(ctx.registry.pendingActionOf('session-1')).toBeNull();
    expect(ctx.admissions).toEqual([]);
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    expect(ctx.admissions).toMatchObject([
      {
        sessionId: 'session-1',
        requestId: consent.id,
        text: 'I rejected: Run npm test. My reason: Run the unit tests only',
        author: ADA,
      },
    ]);
    expect(ctx.registry.get(consent.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'dispatched',
      selected_option_id: 'reject',
      reason: 'Run the unit tests only',
      responded_by: ADA,
    });
  });

  it('refuses invalid requests without opening them', () => {
    const ctx = setup();
    expect(ctx.registry.request(actionInput({ url: 'javascript:alert(1)' }))).toEqual({
      ok: false,
      code: 'invalid_request',
      message: 'url must be an http(s) URL',
    });
    expect(ctx.registry.request(consentInput({ options: [] }))).toEqual({
      ok: false,
      code: 'invalid_request',
      message: 'at least one option is required',
    });
    expect(ctx.published).toEqual([]);
  });
});

describe('action follow-ups', () => {
  it('done → armed → turn ended → due → admitted with the request ID → dispatched', async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    await flush();
    expect(action.outcome()).toEqual({ kind: 'decided', decision: 'done' });
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'armed',
      follow_up_text: 'Continue. I have completed: Connect GitHub',
      deadline_at: null,
    });
    expect(ctx.admissions).toEqual([]);

    ctx.registry.turnEnded('session-1', 'normal');
    expect(ctx.registry.get(action.id)?.status).toBe('due');
    await flush();
    expect(ctx.admissions).toEqual([
      {
        sessionId: 'session-1',
        requestId: action.id,
        text: 'Continue. I have completed: Connect GitHub',
        // Sent for the person who answered: the message is recorded as theirs.
        author: ADA,
        atMs: ctx.clock.nowMs(),
      },
    ]);
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'dispatched',
      decision: 'done',
    });
    expect(ctx.timers.active).toBe(0);
  });

  it('its turn ended between the caller’s read and its opening: that end is its own', async () => {
    const ctx = setup();
    const normal = ctx.registry.nextTurnEnd('session-1');
    ctx.registry.turnEnded('session-1', 'normal');
    const action = open(ctx.registry, actionInput({ turnEndSinceCheck: normal }));
    // As if asked between turns: the person's Done is sent now, not after some later turn.
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    await flush();
    expect(ctx.admissions.map((call) => call.requestId)).toEqual([action.id]);
    expect(ctx.registry.get(action.id)).toMatchObject({ settled_reason: 'dispatched' });

    // A cancelled turn ends its action, opened late or not; a later turn's end is no one's.
    const cancelled = ctx.registry.nextTurnEnd('session-1');
    ctx.registry.turnEnded('session-1', 'cancelled');
    const swept = open(ctx.registry, actionInput({ turnEndSinceCheck: cancelled }));
    const later = open(
      ctx.registry,
      actionInput({ turnEndSinceCheck: cancelled, outsideTurn: true }),
    );
    const waiting = open(
      ctx.registry,
      actionInput({ turnEndSinceCheck: ctx.registry.nextTurnEnd('session-1') }),
    );
    await flush();
    expect(swept.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(later.id)).toMatchObject({ status: 'awaiting' });
    expect(ctx.registry.get(waiting.id)).toMatchObject({ status: 'awaiting' });
  });

  it('its agent exited between the caller’s read and its opening: it ends, noted', async () => {
    const noted: string[] = [];
    const registry = createUserInputRegistry({
      clock: fakeClock(),
      ids: sequentialIds('req'),
      timers: new ClockTimers(fakeClock()),
      publish: () => undefined,
      answerAgent: () => undefined,
      admitFollowUp: () => Promise.resolve('accepted'),
      noteEnded: (view) => noted.push(view.id),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const exited = registry.nextTurnEnd('session-1');
    registry.turnEnded('session-1', 'agent_exited');
    const action = open(registry, actionInput({ turnEndSinceCheck: exited }));
    await flush();
    expect(action.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(registry.get(action.id)).toMatchObject({ settled_reason: 'agent_exited' });
    expect(noted).toEqual([action.id]);
  });

  it('skip arms the skip text', async () => {
    const ctx = setup();
    await dueAction(ctx, 'skip');
    expect(ctx.admissions.map((call) => call.text)).toEqual([
      'I skipped: Connect GitHub. Continue without it.',
    ]);
  });

  it('acceptance fails twice then succeeds: three attempts, 1 s and 2 s apart, dispatched', async () => {
    const ctx = setup();
    ctx.script.push(failing(), failing());
    const start = ctx.clock.nowMs();
    const action = await dueAction(ctx);
    expect(ctx.admissions).toHaveLength(1);
    expect(ctx.registry.get(action.id)).toMatchObject({ status: 'due', queued: true });

    ctx.timers.advance(999);
    await flush();
    expect(ctx.admissions).toHaveLength(1);
    ctx.timers.advance(1);
    await flush();
    expect(ctx.admissions).toHaveLength(2);
    ctx.timers.advance(1999);
    await flush();
    expect(ctx.admissions).toHaveLength(2);
    ctx.timers.advance(1);
    await flush();

    expect(ctx.admissions.map((call) => [call.requestId, call.atMs - start])).toEqual([
      [action.id, 0],
      [action.id, 1000],
      [action.id, 3000],
    ]);
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'dispatched',
      follow_up_attempts: 0,
    });
    expect(ctx.viewsOf(action.id).filter((view) => view.status === 'settled')).toHaveLength(1);
    ctx.timers.advance(60_000);
    await flush();
    expect(ctx.admissions).toHaveLength(3);
  });

  it('a session’s drain waits for its own follow-ups, not for another session’s', async () => {
    const ctx = setup();
    let releaseOther: () => void = () => {};
    // Session 2's admission is slow (its agent starting), session 1's is quick.
    const slow: Admit = () =>
      new Promise((resolve) => {
        releaseOther = () => {
          resolve('accepted');
        };
      });
    ctx.script.push(slow);
    const other = open(ctx.registry, actionInput({ sessionId: 'session-2', taskId: 'task-2' }));
    await ctx.registry.respond(other.id, { decision: 'done' }, ADA);
    ctx.registry.turnEnded('session-2', 'normal');
    await flush();
    const own = open(ctx.registry, actionInput());
    await ctx.registry.respond(own.id, { decision: 'done' }, ADA);
    ctx.registry.turnEnded('session-1', 'normal');

    let drained = false;
    void ctx.registry.drain('session-1').then(() => (drained = true));
    await flush();
    expect(drained).toBe(true);
    expect(ctx.registry.get(own.id)).toMatchObject({ settled_reason: 'dispatched' });
    expect(ctx.registry.get(other.id)?.status).not.toBe('settled');

    let drainedAll = false;
    void ctx.registry.drain().then(() => (drainedAll = true));
    await flush();
    expect(drainedAll).toBe(false);
    releaseOther();
    await flush();
    expect(drainedAll).toBe(true);
    expect(ctx.registry.get(other.id)).toMatchObject({ settled_reason: 'dispatched' });
  });

  it('two paths dispatching one follow-up use one admission key and settle once', async () => {
    const ctx = setup();
    // The lead's admission dedups on (session, admission key): a repeat is the same message.
    const messages = new Set<string>();
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const dedupingAdmit: Admit = async (input) => {
      await slow;
      messages.add(`${input.sessionId}/${input.requestId}`);
      return 'accepted';
    };
    ctx.script.push(failing(), dedupingAdmit, dedupingAdmit);
    const action = await dueAction(ctx);
    expect(ctx.registry.get(action.id)?.status).toBe('due');

    // Two turn ends race for the waiting item; only one attempt starts.
    ctx.registry.turnEnded('session-1', 'failed');
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    expect(ctx.admissions).toHaveLength(2);

    // That attempt outlives its timeout, so a retry overlaps it with the same key.
    ctx.timers.advance(FOLLOW_UP_ATTEMPT_TIMEOUT_MS);
    await flush();
    ctx.timers.advance(2000);
    await flush();
    expect(ctx.admissions).toHaveLength(3);
    release();
    await ctx.registry.drain();
    await flush();

    expect(new Set(ctx.admissions.map((call) => call.requestId))).toEqual(new Set([action.id]));
    expect(messages).toEqual(new Set([`session-1/${action.id}`]));
    expect(ctx.viewsOf(action.id).filter((view) => view.status === 'settled')).toMatchObject([
      { settled_reason: 'dispatched' },
    ]);
    expect(ctx.timers.active).toBe(0);
  });

  it('a late acceptance of a timed-out attempt still settles dispatched', async () => {
    const ctx = setup();
    let accept: (value: FollowUpAdmission) => void = () => {};
    ctx.script.push(
      () =>
        new Promise((resolve) => {
          accept = resolve;
        }),
    );
    const action = await dueAction(ctx);
    ctx.timers.advance(FOLLOW_UP_ATTEMPT_TIMEOUT_MS);
    await flush();
    expect(ctx.registry.get(action.id)).toMatchObject({ status: 'due', queued: true });
    accept('accepted');
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
    expect(ctx.admissions).toHaveLength(1);
    expect(ctx.timers.active).toBe(0);
  });

  it('a busy session queues the follow-up until the next turn end', async () => {
    const ctx = setup();
    ctx.script.push(answering('busy'));
    const action = await dueAction(ctx);
    expect(ctx.registry.queuedFollowUps('session-1')).toEqual([
      {
        id: action.id,
        session_id: 'session-1',
        text: 'Continue. I have completed: Connect GitHub',
        owner: 'machine',
        editable: false,
        removable: true,
        created_at: formatTimestamp(BigInt(ctx.clock.nowMs()) * 1_000_000n),
      },
    ]);
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    expect(ctx.admissions).toHaveLength(2);
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
    expect(ctx.registry.queuedFollowUps('session-1')).toEqual([]);
  });

  it('a busy follow-up is rechecked on its own when no turn end comes', async () => {
    const ctx = setup();
    ctx.script.push(answering('busy'));
    const action = await dueAction(ctx);
    ctx.timers.advance(FOLLOW_UP_BUSY_RECHECK_MS);
    await flush();
    expect(ctx.admissions).toHaveLength(2);
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
  });

  it('a refused admission (session ended) settles the follow-up rejected', async () => {
    const ctx = setup();
    ctx.script.push(answering('refused'));
    const action = await dueAction(ctx);
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('rejected');
    expect(ctx.timers.active).toBe(0);
  });

  it.each(['cancelled', 'failed'] as const)('a %s turn sweeps an armed action', async (outcome) => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    ctx.registry.turnEnded('session-1', outcome);
    ctx.registry.turnEnded('session-1', 'normal');
    ctx.timers.advance(60 * 60_000);
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('swept');
    expect(ctx.admissions).toEqual([]);
  });

  it('ordinary failed attempts and failed turns do not sweep a due follow-up', async () => {
    const ctx = setup();
    ctx.script.push(failing(), failing());
    const action = await dueAction(ctx);
    ctx.registry.turnEnded('session-1', 'failed');
    await flush();
    expect(ctx.registry.get(action.id)?.status).toBe('due');
    ctx.registry.turnEnded('session-1', 'cancelled');
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
    expect(ctx.admissions).toHaveLength(3);
  });

  it('an action answered after its turn already ended is due at once', async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    ctx.registry.turnEnded('session-1', 'normal');
    expect(ctx.registry.get(action.id)?.status).toBe('awaiting');
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    await flush();
    expect(ctx.admissions).toHaveLength(1);
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
  });

  it('a later turn cancelled or failed leaves open an action an earlier turn asked', async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    ctx.registry.turnEnded('session-1', 'normal');
    // The person's next message runs a new turn, which they then cancel; another fails.
    ctx.registry.turnEnded('session-1', 'cancelled');
    expect(ctx.registry.get(action.id)?.status).toBe('awaiting');
    ctx.registry.turnEnded('session-1', 'failed');
    expect(ctx.registry.endedByTurnEnd('session-1', 'agent_exited')).toEqual([]);
    ctx.registry.turnEnded('session-1', 'agent_exited');
    await flush();
    expect(ctx.registry.get(action.id)?.status).toBe('awaiting');
    expect((await ctx.registry.respond(action.id, { decision: 'done' }, ADA)).ok).toBe(true);
    await flush();
    expect(ctx.admissions.map((admitted) => admitted.requestId)).toEqual([action.id]);
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
  });
});

describe('a call whose connection closed', () => {
  it('waits for its turn’s end, which ends it as the agent’s exit; the wait’s bound no longer sweeps one named', async () => {
    const ctx = setup();
    const connection = new AbortController();
    const action = open(ctx.registry, actionInput({ connectionLost: connection.signal }));
    connection.abort();
    await flush();
    expect(ctx.registry.get(action.id)).toMatchObject({ status: 'awaiting' });

    expect(ctx.registry.endedByTurnEnd('session-1', 'agent_exited')).toMatchObject([
      { id: action.id },
    ]);
    // Named in the turn's end: an answer before the registry hears that end would be
    // recorded beside a note saying nobody answered.
    expect(await ctx.registry.respond(action.id, { decision: 'done' }, ADA)).toEqual({
      ok: false,
      code: 'agent_exited',
    });
    ctx.timers.advance(LOST_CALL_TURN_END_WAIT_MS);
    expect(ctx.registry.get(action.id)).toMatchObject({ status: 'awaiting' });
    ctx.registry.turnEnded('session-1', 'agent_exited');
    await flush();
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'agent_exited',
    });
    expect(await ctx.registry.respond(action.id, { decision: 'done' }, ADA)).toEqual({
      ok: false,
      code: 'agent_exited',
    });
    expect(ctx.timers.active).toBe(0);
  });

  it('is named again when the write that ends its turn runs again, and still refuses an answer', async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    await flush();
    const published = ctx.published.length;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(ctx.registry.endedByTurnEnd('session-1', 'agent_exited')).toMatchObject([
        { id: action.id, status: 'awaiting' },
      ]);
    }
    expect(await ctx.registry.respond(action.id, { decision: 'done' }, ADA)).toEqual({
      ok: false,
      code: 'agent_exited',
    });
    // Naming shows nothing: the request's next event is its end.
    expect(ctx.published.length).toBe(published);
    ctx.registry.turnEnded('session-1', 'agent_exited');
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'agent_exited',
      revision: 2,
    });
  });

  it('is swept at its turn’s end when the agent lives on, or once the wait’s bound passes', async () => {
    const ctx = setup();
    const connection = new AbortController();
    const action = open(ctx.registry, actionInput({ connectionLost: connection.signal }));
    const consent = open(
      ctx.registry,
      consentInput({ sessionId: 'session-2', connectionLost: connection.signal }),
    );
    connection.abort();
    await flush();

    // A normal end leaves an action waiting for the person, but nobody waits for its answer now.
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    expect(action.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(action.id)).toMatchObject({ settled_reason: 'swept' });

    ctx.timers.advance(LOST_CALL_TURN_END_WAIT_MS - 1);
    await flush();
    expect(ctx.registry.get(consent.id)).toMatchObject({ status: 'awaiting' });
    ctx.timers.advance(1);
    await flush();
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.timers.active).toBe(0);
  });

  it('ends as its agent’s exit, at once, when the connection that closed was the agent process’s own and its turn already ended', async () => {
    const ctx = setup();
    const connection = new AbortController();
    const link = open(
      ctx.registry,
      actionInput({ followUp: false, connectionLost: connection.signal, lostWithAgent: true }),
    );
    ctx.registry.turnEnded('session-1', 'normal');
    connection.abort();
    await flush();
    expect(link.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(link.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'agent_exited',
    });
    // Nobody decided, and nothing can reach the agent now: a late answer is told so.
    expect(await ctx.registry.respond(link.id, { decision: 'done' }, ADA)).toEqual({
      ok: false,
      code: 'agent_exited',
    });
    expect(ctx.admissions).toEqual([]);
    expect(ctx.timers.active).toBe(0);
  });

  it('is swept at once when its turn already ended, or when the agent withdrew its call', async () => {
    const ctx = setup();
    const connection = new AbortController();
    const outlived = open(ctx.registry, actionInput({ connectionLost: connection.signal }));
    ctx.registry.turnEnded('session-1', 'normal');
    connection.abort();
    await flush();
    expect(outlived.outcome()).toEqual({ kind: 'refused', reason: 'swept' });

    const withdrawal = new AbortController();
    const withdrawn = open(
      ctx.registry,
      actionInput({ signal: withdrawal.signal, connectionLost: new AbortController().signal }),
    );
    withdrawal.abort();
    await flush();
    expect(withdrawn.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.timers.active).toBe(0);
  });
});

describe('deletion and reset', () => {
  it('sessionDeleted settles every request of the session; nothing is admitted afterwards', async () => {
    const ctx = setup();
    ctx.script.push(failing());
    const due = await dueAction(ctx);
    const armed = open(ctx.registry, actionInput());
    await ctx.registry.respond(armed.id, { decision: 'skip' }, ADA);
    const consent = open(ctx.registry, consentInput());
    const elsewhere = open(ctx.registry, consentInput({ sessionId: 'session-2' }));

    expect(ctx.registry.sessionDeleted('session-1')).toBe(3);
    for (const id of [due.id, armed.id, consent.id]) {
      expect(ctx.registry.get(id)?.settled_reason).toBe('swept');
    }
    ctx.registry.turnEnded('session-1', 'normal');
    ctx.timers.advance(60 * 60_000);
    await flush();
    expect(ctx.admissions).toHaveLength(1);
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(elsewhere.id)?.settled_reason).toBe('timed_out');
  });

  it('forgetSession (fenced: another replica took the session) drops its requests without publishing', async () => {
    const ctx = setup();
    ctx.script.push(failing());
    const due = await dueAction(ctx);
    const consent = open(ctx.registry, consentInput());
    const elsewhere = open(ctx.registry, consentInput({ sessionId: 'session-2' }));
    const publishedBefore = ctx.published.length;
    const admittedBefore = ctx.admissions.length;

    expect(ctx.registry.forgetSession('session-1')).toBe(2);
    // Their rows and mirror belong to the replica that took the session over.
    expect(ctx.published).toHaveLength(publishedBefore);
    for (const id of [due.id, consent.id]) expect(ctx.registry.get(id)).toBeUndefined();
    await flush();
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.pendingActionOf('session-1')).toBeNull();
    // No timer of theirs fires later: no retry of the follow-up.
    ctx.timers.advance(60 * 60_000);
    await flush();
    expect(ctx.admissions).toHaveLength(admittedBefore);
    expect(ctx.registry.get(elsewhere.id)?.settled_reason).toBe('timed_out');
  });

  it('a deletion while an attempt is in flight wins over its late acceptance', async () => {
    const ctx = setup();
    let accept: (value: FollowUpAdmission) => void = () => {};
    ctx.script.push(
      () =>
        new Promise((resolve) => {
          accept = resolve;
        }),
    );
    const action = await dueAction(ctx);
    expect(ctx.timers.active).toBe(1); // the attempt's own timeout
    ctx.registry.sessionDeleted('session-1');
    expect(ctx.timers.active).toBe(0);
    accept('accepted');
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('swept');
    expect(
      ctx.logs
        .filter((entry) => entry.message === 'user_input.event_ignored')
        .map((entry) => [entry.fields.event, entry.fields.reason]),
    ).toContainEqual(['dispatchAccepted', 'already_settled']);
  });

  it('a deletion in the same tick as a new attempt stops the port being called', async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput());
    await ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    ctx.registry.turnEnded('session-1', 'normal');
    ctx.registry.sessionDeleted('session-1');
    await flush();
    expect(ctx.admissions).toEqual([]);
  });

  it('taskDeleted, reset and close settle their requests and stop every timer', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput({ taskId: 'task-1' }));
    const second = open(ctx.registry, actionInput({ sessionId: 'session-2', taskId: 'task-2' }));
    const third = open(ctx.registry, actionInput({ sessionId: 'session-3', taskId: 'task-3' }));
    expect(ctx.registry.taskDeleted('task-1')).toBe(1);
    expect(ctx.registry.reset()).toBe(2);
    expect(ctx.registry.get(second.id)?.settled_reason).toBe('swept');
    const fourth = open(ctx.registry, consentInput());
    ctx.registry.close();
    await flush();
    expect(ctx.timers.active).toBe(0);
    for (const request of [first, second, third, fourth]) {
      expect(request.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    }
    expect(ctx.registry.request(consentInput())).toEqual({ ok: false, code: 'shutting_down' });
  });
});

describe('machine-owned queue items', () => {
  it('a claimed item cannot be started, and rejecting it settles the owner', async () => {
    const ctx = setup();
    ctx.script.push(answering('busy'));
    const action = await dueAction(ctx);
    expect(ctx.registry.claimQueued('session-2', action.id)).toEqual({
      ok: false,
      code: 'not_found',
    });
    expect(ctx.registry.claimQueued('session-1', action.id)).toEqual({ ok: true });
    expect(ctx.registry.queuedFollowUps('session-1')).toEqual([]);
    ctx.registry.turnEnded('session-1', 'normal');
    ctx.timers.advance(FOLLOW_UP_BUSY_RECHECK_MS * 4);
    await flush();
    expect(ctx.admissions).toHaveLength(1);

    expect(ctx.registry.reject(action.id)).toEqual({ ok: true });
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('rejected');
    expect(ctx.registry.reject(action.id)).toEqual({ ok: false, code: 'already_settled' });
    expect(ctx.timers.active).toBe(0);
  });

  it('an item whose removal fails is restored and later dispatched', async () => {
    const ctx = setup();
    ctx.script.push(answering('busy'));
    const action = await dueAction(ctx);
    expect(ctx.registry.claimQueued('session-1', action.id)).toEqual({ ok: true });
    // The lead's removal failed after the claim: it puts the item back.
    expect(ctx.registry.restoreQueued(action.id)).toEqual({ ok: true });
    expect(ctx.registry.queuedFollowUps('session-1').map((item) => item.id)).toEqual([action.id]);
    expect(ctx.registry.restoreQueued(action.id)).toEqual({ ok: false, code: 'not_queued' });
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
  });

  it('an item being admitted right now cannot be claimed', async () => {
    const ctx = setup();
    let accept: (value: FollowUpAdmission) => void = () => {};
    ctx.script.push(
      () =>
        new Promise((resolve) => {
          accept = resolve;
        }),
    );
    const action = await dueAction(ctx);
    expect(ctx.registry.claimQueued('session-1', action.id)).toEqual({
      ok: false,
      code: 'in_flight',
    });
    accept('accepted');
    await flush();
    expect(ctx.registry.get(action.id)?.settled_reason).toBe('dispatched');
  });
});

describe('publication', () => {
  it('every change is published once, with revisions strictly increasing per request', async () => {
    const ctx = setup();
    ctx.script.push(failing(), answering('busy'));
    const action = await dueAction(ctx);
    ctx.timers.advance(1000);
    await flush();
    ctx.registry.claimQueued('session-1', action.id);
    ctx.registry.restoreQueued(action.id);
    ctx.registry.turnEnded('session-1', 'normal');
    await flush();
    const consent = open(ctx.registry, consentInput());
    await ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    await ctx.registry.respond(consent.id, { option_id: 'reject' }, ADA);

    for (const id of [action.id, consent.id]) {
      const revisions = ctx.viewsOf(id).map((view) => view.revision);
      expect(revisions).toEqual(revisions.map((_, index) => index + 1));
      expect(ctx.registry.get(id)?.revision).toBe(revisions.at(-1));
    }
    expect(ctx.viewsOf(action.id).map((view) => view.status)).toEqual([
      'awaiting',
      'armed',
      'due', // attempt 1 (fails)
      'due', // waiting
      'due', // attempt 2 (busy)
      'due', // waiting
      'due', // claimed
      'due', // restored
      'due', // attempt 3
      'settled',
    ]);
  });

  it('a publisher that throws is logged and never wedges the registry', async () => {
    const ctx = setup();
    const registry = createUserInputRegistry({
      clock: ctx.clock,
      ids: sequentialIds('x'),
      timers: ctx.timers,
      publish: () => {
        throw new Error('socket closed');
      },
      admitFollowUp: () => Promise.resolve('accepted'),
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    const action = open(registry, actionInput());
    await registry.respond(action.id, { decision: 'done' }, ADA);
    registry.turnEnded('session-1', 'normal');
    await flush();
    expect(registry.get(action.id)?.settled_reason).toBe('dispatched');
  });

  it('snapshot filters by visible sessions; ignored events are logged with a reason', () => {
    const ctx = setup();
    const mine = open(ctx.registry, consentInput());
    open(ctx.registry, consentInput({ sessionId: 'session-2' }));
    expect(ctx.registry.snapshot(new Set(['session-1'])).map((view) => view.id)).toEqual([mine.id]);
    expect(ctx.registry.snapshot()).toHaveLength(2);
    ctx.registry.reject(mine.id);
    expect(ctx.logs).toContainEqual({
      level: 'info',
      message: 'user_input.event_ignored',
      fields: {
        request_id: mine.id,
        event: 'queueItemRemoved',
        status: 'awaiting',
        reason: 'not_due',
      },
    });
  });
});
