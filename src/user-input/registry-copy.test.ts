/**
 * The registry with a `keepOpen` port: a request a person will be asked is
 * opened only once its copy for recovery is kept, so no person can see or
 * answer one a restart would say nothing of. A copy that cannot be kept is
 * logged and the request is asked all the same; a close meanwhile refuses
 * the agent; a remembered "always" asks nobody and keeps no copy. A request
 * whose turn ended while it opened (the end settled only what was open)
 * ends as it opens, its copy forgotten with it, or asks nobody at all.
 */
import { describe, expect, it } from 'vitest';
import { ClockTimers, fakeClock, sequentialIds } from '../../test/support/fakes.js';
import { ADA, actionInput, consentInput, flush } from '../../test/support/user-input-fixtures.js';
import type { UserInputRegistry } from './ports.js';
import type { RequestInput } from './request-input.js';
import { createUserInputRegistry } from './registry.js';
import type { AgentOutcome, UserInputView } from './types.js';

function setup() {
  const clock = fakeClock();
  const copies: { view: UserInputView; keep(): void; fail(): void }[] = [];
  const published: UserInputView[] = [];
  const warnings: string[] = [];
  const registry: UserInputRegistry = createUserInputRegistry({
    clock,
    ids: sequentialIds('req'),
    timers: new ClockTimers(clock),
    publish: (view) => published.push(view),
    admitFollowUp: () => Promise.resolve('accepted'),
    keepOpen: (view) =>
      new Promise<void>((resolve, reject) => {
        copies.push({
          view,
          keep: resolve,
          fail: () => {
            reject(new Error('disk full'));
          },
        });
      }),
    logger: {
      info: () => undefined,
      warn: (_fields, message) => warnings.push(message),
      error: () => undefined,
    },
  });
  return { copies, published, warnings, registry };
}

function open(registry: UserInputRegistry, input: RequestInput) {
  const result = registry.request(input);
  if (!result.ok) throw new Error(`request refused: ${result.code}`);
  let outcome: AgentOutcome | undefined;
  void result.outcome.then((value) => (outcome = value));
  return { id: result.id, outcome: () => outcome };
}

describe('a request opens once its copy is kept', () => {
  it.each([
    ['consent', consentInput()],
    ['action', actionInput()],
  ] as const)('a %s is neither seen nor answerable before its copy is kept', async (_, input) => {
    const ctx = setup();
    const asked = open(ctx.registry, input);
    await flush();

    expect(ctx.copies).toHaveLength(1);
    expect(ctx.copies[0]?.view).toMatchObject({ id: asked.id, status: 'awaiting', revision: 1 });
    expect(ctx.registry.get(asked.id)).toBeUndefined();
    expect(ctx.registry.snapshot()).toEqual([]);
    expect(ctx.registry.pendingActionOf(input.sessionId)).toBeNull();
    expect(ctx.published).toEqual([]);
    const early = await ctx.registry.respond(
      asked.id,
      input.kind === 'consent' ? { option_id: 'allow' } : { decision: 'done' },
      ADA,
    );
    expect(early).toEqual({ ok: false, code: 'not_found' });

    ctx.copies[0]?.keep();
    await flush();
    // The copy is the view the request opens with.
    expect(ctx.published).toEqual([ctx.copies[0]?.view]);
    expect(ctx.registry.get(asked.id)).toMatchObject({ status: 'awaiting' });
  });

  it('a copy that could not be kept is logged, and the request is asked all the same', async () => {
    const ctx = setup();
    const asked = open(ctx.registry, consentInput());
    await flush();
    ctx.copies[0]?.fail();
    await flush();
    expect(ctx.warnings).toContain('user_input.copy_not_kept');
    expect(ctx.registry.get(asked.id)).toMatchObject({ status: 'awaiting' });
  });

  it('a close while the copy is kept refuses the agent and opens nothing', async () => {
    const ctx = setup();
    const asked = open(ctx.registry, actionInput());
    await flush();
    ctx.registry.close();
    ctx.copies[0]?.keep();
    await flush();
    expect(asked.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(asked.id)).toBeUndefined();
    expect(ctx.published).toEqual([]);
  });

  it('a consent whose turn ended while its copy was kept opens only to be swept', async () => {
    const ctx = setup();
    const turn = new AbortController();
    const asked = open(ctx.registry, consentInput({ turnEnd: turn.signal }));
    await flush();
    turn.abort();
    ctx.registry.turnEnded('session-1', 'normal');
    ctx.copies[0]?.keep();
    await flush();

    expect(asked.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(asked.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'swept',
    });
    expect(ctx.registry.snapshot()).toEqual([]);
    expect(ctx.registry.pendingActionOf('session-1')).toBeNull();
    // Its settled view follows the one its copy was kept as: the publisher forgets the copy.
    expect(ctx.published.map((view) => view.status)).toEqual(['awaiting', 'settled']);
    expect(await ctx.registry.respond(asked.id, { option_id: 'allow' }, ADA)).toEqual({
      ok: false,
      code: 'already_settled',
    });
  });

  it('a request whose turn already ended keeps no copy, shows nothing and refuses its agent', async () => {
    const ctx = setup();
    const asked = open(ctx.registry, consentInput({ turnEnd: AbortSignal.abort() }));
    await flush();
    expect(asked.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.copies).toEqual([]);
    expect(ctx.published).toEqual([]);
    expect(ctx.registry.get(asked.id)).toBeUndefined();
  });

  it('a request whose turn goes on opens as any other', async () => {
    const ctx = setup();
    const asked = open(ctx.registry, consentInput({ turnEnd: new AbortController().signal }));
    await flush();
    ctx.copies[0]?.keep();
    await flush();
    expect(ctx.registry.get(asked.id)).toMatchObject({ status: 'awaiting' });
    expect(asked.outcome()).toBeUndefined();
  });

  it('a remembered "always" answers at once and keeps no copy', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    await flush();
    ctx.copies[0]?.keep();
    await flush();
    expect(await ctx.registry.respond(first.id, { option_id: 'always' }, ADA)).toMatchObject({
      ok: true,
    });
    const again = open(ctx.registry, consentInput());
    await flush();
    expect(again.outcome()).toMatchObject({ kind: 'selected', remembered: true });
    expect(ctx.copies).toHaveLength(1);
  });

  it('a rule that cannot answer (no allow-once offered) asks a person once the copy is kept', async () => {
    const ctx = setup();
    const first = open(ctx.registry, consentInput());
    await flush();
    ctx.copies[0]?.keep();
    await flush();
    await ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    const alwaysOnly = consentInput({
      options: [
        { option_id: 'always', label: 'Always allow', kind: 'allow_always' },
        { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
      ],
    });
    const asked = open(ctx.registry, alwaysOnly);
    await flush();
    expect(ctx.copies).toHaveLength(2);
    expect(ctx.copies[1]?.view).toMatchObject({ id: asked.id, status: 'awaiting' });
    expect(ctx.registry.get(asked.id)).toBeUndefined();
    ctx.copies[1]?.keep();
    await flush();
    expect(ctx.registry.get(asked.id)).toMatchObject({ status: 'awaiting' });
    expect(asked.outcome()).toBeUndefined();
  });
});
