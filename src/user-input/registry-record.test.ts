/**
 * The registry with a `recordDecision` port: a person's decision is kept
 * before it takes effect. Until the port settles the agent hears nothing and
 * the request's other events wait; a decision that could not be kept is
 * refused and the request waits on; answers to one request are judged one
 * after another, so only one is ever kept.
 */
import { describe, expect, it } from 'vitest';
import { ClockTimers, fakeClock, sequentialIds } from '../../test/support/fakes.js';
import { ADA, actionInput, consentInput, flush } from '../../test/support/user-input-fixtures.js';
import { ConsentRuleGone, type UserInputRegistry } from './ports.js';
import type { ActionRequestInput, ConsentRequestInput } from './request-input.js';
import { createUserInputRegistry } from './registry.js';
import {
  CONSENT_DEADLINE_MS,
  type AgentOutcome,
  type Responder,
  type UserInputView,
} from './types.js';

const GRACE: Responder = { user_id: 'user-2', name: 'Grace', surface: 'mcp' };

/** A store-like port whose writes end only when the test says so. */
function heldRecords() {
  const writes: { view: UserInputView; keep(): void; fail(error?: Error): void }[] = [];
  const port = (view: UserInputView) =>
    new Promise<void>((resolve, reject) => {
      writes.push({
        view,
        keep: resolve,
        fail: (error = new Error('disk full')) => {
          reject(error);
        },
      });
    });
  return { port, writes };
}

function setup() {
  const clock = fakeClock();
  const timers = new ClockTimers(clock);
  const records = heldRecords();
  const published: UserInputView[] = [];
  const errors: string[] = [];
  const infos: string[] = [];
  const registry: UserInputRegistry = createUserInputRegistry({
    clock,
    ids: sequentialIds('req'),
    timers,
    publish: (view) => published.push(view),
    admitFollowUp: () => Promise.resolve('accepted'),
    recordDecision: records.port,
    logger: {
      info: (_fields, message) => infos.push(message),
      warn: () => undefined,
      error: (_fields, message) => errors.push(message),
    },
  });
  return { clock, timers, records, published, errors, infos, registry };
}

function open(registry: UserInputRegistry, input: ConsentRequestInput | ActionRequestInput) {
  const result = registry.request(input);
  if (!result.ok) throw new Error(`request refused: ${result.code}`);
  let outcome: AgentOutcome | undefined;
  void result.outcome.then((value) => (outcome = value));
  return { id: result.id, outcome: () => outcome };
}

describe('a decision is kept before it takes effect', () => {
  it('the agent hears the answer only once the decision is kept, and the kept view is the answer', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    await flush();

    expect(ctx.records.writes).toHaveLength(1);
    expect(ctx.records.writes[0]?.view).toMatchObject({
      id: consent.id,
      status: 'settled',
      selected_option_id: 'allow',
      responded_by: ADA,
    });
    expect(consent.outcome()).toBeUndefined();
    expect(ctx.registry.get(consent.id)).toMatchObject({ status: 'awaiting' });

    ctx.records.writes[0]?.keep();
    expect(await responded).toMatchObject({ ok: true, request: { status: 'settled' } });
    await flush();
    expect(consent.outcome()).toMatchObject({ kind: 'selected', option_id: 'allow' });
  });

  it('a decision that could not be kept is refused; the agent hears nothing and a retry is kept', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const refused = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    await flush();
    ctx.records.writes[0]?.fail();

    expect(await refused).toEqual({ ok: false, code: 'not_recorded' });
    expect(ctx.errors).toContain('user_input.decision_not_recorded');
    await flush();
    expect(consent.outcome()).toBeUndefined();
    expect(ctx.registry.get(consent.id)).toMatchObject({ status: 'awaiting', revision: 1 });
    expect(ctx.published.map((view) => view.status)).toEqual(['awaiting']);

    const retried = ctx.registry.respond(consent.id, { option_id: 'reject' }, ADA);
    await flush();
    ctx.records.writes[1]?.keep();
    expect(await retried).toMatchObject({ ok: true });
    await flush();
    expect(consent.outcome()).toMatchObject({ kind: 'selected', option_id: 'reject' });
  });

  it('an answer the rules refuse is never kept', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    expect(await ctx.registry.respond(consent.id, { option_id: 'nope' }, ADA)).toEqual({
      ok: false,
      code: 'invalid',
    });
    expect(await ctx.registry.respond(consent.id, { decision: 'done' }, ADA)).toEqual({
      ok: false,
      code: 'invalid',
    });
    expect(ctx.records.writes).toHaveLength(0);
  });

  it('two people answering at once: the first is kept and wins, the second is told it is settled', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const first = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    const second = ctx.registry.respond(consent.id, { option_id: 'reject' }, GRACE);
    await flush();
    expect(ctx.records.writes).toHaveLength(1);

    ctx.records.writes[0]?.keep();
    expect(await first).toMatchObject({ ok: true });
    expect(await second).toEqual({ ok: false, code: 'already_settled' });
    expect(ctx.records.writes).toHaveLength(1);
    expect(consent.outcome()).toMatchObject({ option_id: 'allow' });
  });

  it('when the first could not be kept, the second answer is judged on the request still waiting', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const first = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    const second = ctx.registry.respond(consent.id, { option_id: 'reject' }, GRACE);
    await flush();
    ctx.records.writes[0]?.fail();
    expect(await first).toEqual({ ok: false, code: 'not_recorded' });
    await flush();

    expect(ctx.records.writes[1]?.view).toMatchObject({ responded_by: GRACE });
    ctx.records.writes[1]?.keep();
    expect(await second).toMatchObject({ ok: true });
    await flush();
    expect(consent.outcome()).toMatchObject({ option_id: 'reject' });
  });

  it('a deadline passing while the decision is kept: the decision came first and stands', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    await flush();
    ctx.timers.advance(CONSENT_DEADLINE_MS);
    expect(consent.outcome()).toBeUndefined();

    ctx.records.writes[0]?.keep();
    expect(await responded).toMatchObject({ ok: true });
    await flush();
    expect(consent.outcome()).toMatchObject({ kind: 'selected', option_id: 'allow' });
    expect(ctx.registry.get(consent.id)).toMatchObject({ settled_reason: 'human' });
  });

  it('a deadline passing while a decision fails to be kept still times the request out', async () => {
    const ctx = setup();
    const consent = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(consent.id, { option_id: 'allow' }, ADA);
    await flush();
    ctx.timers.advance(CONSENT_DEADLINE_MS);
    ctx.records.writes[0]?.fail();

    expect(await responded).toEqual({ ok: false, code: 'not_recorded' });
    await flush();
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'timed_out' });
    expect(ctx.registry.get(consent.id)).toMatchObject({ settled_reason: 'timed_out' });
  });

  it("a turn's end while an action's decision is kept follows it: the follow-up is owed", async () => {
    const ctx = setup();
    const action = open(ctx.registry, actionInput({ url: null }));
    const responded = ctx.registry.respond(action.id, { decision: 'done' }, ADA);
    await flush();
    expect(ctx.records.writes[0]?.view).toMatchObject({ status: 'armed', decision: 'done' });
    ctx.registry.turnEnded('session-1', 'normal');
    expect(ctx.registry.get(action.id)).toMatchObject({ status: 'awaiting' });

    ctx.records.writes[0]?.keep();
    expect(await responded).toMatchObject({ ok: true, request: { status: 'armed' } });
    await flush();
    // The replayed turn end made the follow-up due, and its admission was accepted.
    expect(ctx.registry.get(action.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'dispatched',
    });
    expect(ctx.records.writes).toHaveLength(1);
  });

  it('a remembered "always" answers once its line in the transcript, naming who set it, is kept', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    ctx.records.writes[0]?.keep();
    await responded;

    const second = open(ctx.registry, consentInput());
    await flush();
    expect(ctx.records.writes[1]?.view).toMatchObject({
      id: second.id,
      remembered: true,
      responded_by: ADA,
    });
    expect(second.outcome()).toBeUndefined();
    ctx.records.writes[1]?.keep();
    await flush();
    expect(second.outcome()).toMatchObject({ kind: 'selected', remembered: true });
    expect(ctx.records.writes).toHaveLength(2);
  });

  it('a rule’s answer that cannot be kept in the transcript is not given: a person is asked', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    ctx.records.writes[0]?.keep();
    await responded;

    const second = open(ctx.registry, consentInput());
    await flush();
    ctx.records.writes[1]?.fail();
    await flush();
    expect(second.outcome()).toBeUndefined();
    expect(ctx.registry.get(second.id)).toMatchObject({ status: 'awaiting', remembered: false });
    expect(ctx.errors).toContain('user_input.rule_answer_not_recorded');
  });

  it('a rule revoked before its answer was kept asks a person, and logs no error', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    ctx.records.writes[0]?.keep();
    await responded;

    const second = open(ctx.registry, consentInput());
    await flush();
    ctx.records.writes[1]?.fail(new ConsentRuleGone());
    await flush();
    expect(ctx.registry.get(second.id)).toMatchObject({ status: 'awaiting', remembered: false });
    expect(ctx.errors).toEqual([]);
    expect(ctx.infos).toContain('user_input.rule_gone_before_its_answer');
  });
});

describe('a close while a rule’s answer is kept', () => {
  it('the answer its kept line names is what the agent hears', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    ctx.records.writes[0]?.keep();
    await responded;

    const second = open(ctx.registry, consentInput());
    await flush();
    expect(ctx.records.writes[1]?.view).toMatchObject({ id: second.id, remembered: true });
    // Shutdown comes while the rule's line is being written; the write then commits.
    ctx.registry.close();
    ctx.records.writes[1]?.keep();
    await flush();
    expect(second.outcome()).toMatchObject({
      kind: 'selected',
      option_id: 'allow',
      remembered: true,
    });
    expect(ctx.registry.get(second.id)).toMatchObject({ status: 'settled', remembered: true });
  });

  it('one whose line was not kept refuses the agent and asks nobody', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    ctx.records.writes[0]?.keep();
    await responded;

    const second = open(ctx.registry, consentInput());
    await flush();
    ctx.registry.close();
    ctx.records.writes[1]?.fail();
    await flush();
    expect(second.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(second.id)).toBeUndefined();
    expect(ctx.records.writes).toHaveLength(2);
  });
});
