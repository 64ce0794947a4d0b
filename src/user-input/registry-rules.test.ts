/**
 * The registry with a `consentRules` port (issue 15): a consent asks the port
 * before it asks a person; a person's "always" is kept by their decision's
 * own write, before the answer takes effect; a failing port asks a person; a
 * close during the lookup refuses the agent.
 */
import { describe, expect, it } from 'vitest';
import { ClockTimers, fakeClock, sequentialIds } from '../../test/support/fakes.js';
import { ADA, consentInput, flush } from '../../test/support/user-input-fixtures.js';
import type { ConsentRuleQuery, ConsentRulesPort, ConsentRuleToKeep } from './ports.js';
import { createUserInputRegistry } from './registry.js';
import {
  CONSENT_RULE_LOOKUP_TIMEOUT_MS,
  type AgentOutcome,
  type Responder,
  type UserInputView,
} from './types.js';

/**
 * A store-like rules port, and the decision write that keeps a person's
 * "always" with their decision: a write that keeps a rule finishes only when
 * the test releases it; other decisions are kept at once.
 */
function slowRules() {
  const rules = new Map<string, Responder>();
  const key = (profile: string, toolKey: string) => `${profile}/${toolKey}`;
  const pendingWrites: (() => void)[] = [];
  const lookups: ConsentRuleQuery[] = [];
  let failLookups = false;
  let hangLookups = false;
  const port: ConsentRulesPort = {
    find(query) {
      lookups.push(query);
      if (failLookups) return Promise.reject(new Error('store unavailable'));
      if (hangLookups) return new Promise<never>(() => {});
      return Promise.resolve(rules.get(key(query.profile, query.toolKey)) ?? null);
    },
  };
  const recordDecision = (_decided: UserInputView, rule?: ConsentRuleToKeep): Promise<void> => {
    if (!rule) return Promise.resolve();
    return new Promise((done) => {
      pendingWrites.push(() => {
        rules.set(key(rule.profile, rule.toolKey), rule.setBy);
        done();
      });
    });
  };
  return {
    port,
    recordDecision,
    rules,
    lookups,
    releaseWrites: () => {
      for (const release of pendingWrites.splice(0)) release();
    },
    failLookups: () => {
      failLookups = true;
    },
    hangLookups: () => {
      hangLookups = true;
    },
  };
}

function setup() {
  const clock = fakeClock();
  const timers = new ClockTimers(clock);
  const rules = slowRules();
  const published: UserInputView[] = [];
  const registry = createUserInputRegistry({
    clock,
    ids: sequentialIds('req'),
    timers,
    publish: (view) => published.push(view),
    admitFollowUp: () => Promise.resolve('accepted'),
    consentRules: rules.port,
    recordDecision: rules.recordDecision,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  const open = () => {
    const result = registry.request(consentInput());
    if (!result.ok) throw new Error(result.code);
    let outcome: AgentOutcome | undefined;
    void result.outcome.then((value) => (outcome = value));
    return { id: result.id, outcome: () => outcome };
  };
  return { registry, rules, published, open, timers };
}

describe('consent with a consentRules port', () => {
  it('asks the port with the request’s task, profile and tool, then waits for a person', async () => {
    const ctx = setup();
    const consent = ctx.open();
    await flush();
    expect(ctx.rules.lookups).toEqual([
      {
        sessionId: 'session-1',
        taskId: 'task-1',
        profile: 'demo',
        toolKey: 'execute',
        command: 'Run npm test',
      },
    ]);
    expect(ctx.registry.get(consent.id)?.status).toBe('awaiting');
  });

  it('an "always" takes effect once its decision kept it; then it answers the next request', async () => {
    const ctx = setup();
    const first = ctx.open();
    await flush();
    const responded = ctx.registry.respond(first.id, { option_id: 'always' }, ADA);
    await flush();
    // Its decision's write keeps the rule: until it commits, the agent has no answer.
    expect(first.outcome()).toBeUndefined();
    ctx.rules.releaseWrites();
    await responded;
    expect(ctx.rules.rules.get('demo/execute')).toEqual(ADA);

    const next = ctx.open();
    await flush();
    expect(next.outcome()).toEqual({
      kind: 'selected',
      option_id: 'allow',
      option_kind: 'allow_once',
      remembered: true,
    });
    expect(ctx.registry.get(next.id)).toMatchObject({ status: 'settled', remembered: true });
  });

  it('refuses a rules port without the decision write that keeps its rules', () => {
    expect(() =>
      createUserInputRegistry({
        clock: fakeClock(),
        ids: sequentialIds('req'),
        timers: new ClockTimers(fakeClock()),
        publish: () => undefined,
        admitFollowUp: () => Promise.resolve('accepted'),
        consentRules: slowRules().port,
        logger: { info: () => {}, warn: () => {}, error: () => {} },
      }),
    ).toThrow(/recordDecision/);
  });

  it('a failing lookup asks a person instead', async () => {
    const ctx = setup();
    ctx.rules.rules.set('demo/execute', ADA);
    ctx.rules.failLookups();
    const consent = ctx.open();
    await flush();
    expect(consent.outcome()).toBeUndefined();
    expect(ctx.registry.get(consent.id)?.status).toBe('awaiting');
  });

  it('a lookup that does not answer in time asks a person', async () => {
    const ctx = setup();
    ctx.rules.hangLookups();
    const consent = ctx.open();
    await flush();
    ctx.timers.advance(CONSENT_RULE_LOOKUP_TIMEOUT_MS - 1);
    await flush();
    expect(ctx.registry.get(consent.id)).toBeUndefined();
    ctx.timers.advance(1);
    await flush();
    expect(ctx.registry.get(consent.id)?.status).toBe('awaiting');
    expect(consent.outcome()).toBeUndefined();
  });

  it('a close during the lookup refuses the agent and opens nothing', async () => {
    const ctx = setup();
    const consent = ctx.open();
    ctx.registry.close();
    await flush();
    expect(consent.outcome()).toEqual({ kind: 'refused', reason: 'swept' });
    expect(ctx.registry.get(consent.id)).toBeUndefined();
    expect(ctx.published).toEqual([]);
  });
});
