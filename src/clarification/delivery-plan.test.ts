/**
 * The delivery plan as a matrix, no database: every case of DESIGN §5.1 step 4
 * and every failure branch walked step by step, plus the at-most-once
 * invariants checked over every combination of facts.
 */
import { describe, expect, it } from 'vitest';
import {
  deliveryVerdict,
  nextDeliveryStep,
  type DeliveryFacts,
  type DeliveryOutcome,
  type DeliveryStep,
} from './delivery-plan.js';

/** What the world answers to each step a runner would perform. */
interface World {
  decision: 'answered' | 'rejected';
  liveWaiter: boolean;
  liveHandOff?: 'delivered' | 'confirm_failed' | 'no_waiter';
  external?: boolean;
  readiness?: 'ready' | 'refused';
  attemptMark?: 'marked' | 'missing';
  dispatch?: 'accepted' | 'unconfirmed';
  restore?: 'restored' | 'moved_on';
  /** Absent: the clear finds the claim all there. */
  intentClear?: 'cleared' | 'taken_back';
}

type Walked = string;

function label(step: DeliveryStep): Walked {
  switch (step.kind) {
    case 'settleSuccessor':
      return `settleSuccessor(${step.accepted ? 'accepted' : 'unconfirmed'})`;
    case 'done':
      return `done:${step.outcome}`;
    default:
      return step.kind;
  }
}

/** Runs the plan against `world` as the runner would, returning the steps taken. */
function walk(world: World): Walked[] {
  const facts: DeliveryFacts = { decision: world.decision, liveWaiter: world.liveWaiter };
  const taken: Walked[] = [];
  for (let i = 0; i < 20; i++) {
    const step = nextDeliveryStep(facts);
    taken.push(label(step));
    const need = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`the world has no ${what} for ${taken.join(' → ')}`);
      return value;
    };
    switch (step.kind) {
      case 'done':
        return taken;
      case 'handToLiveWaiter':
        facts.liveHandOff = need(world.liveHandOff, 'live hand-off');
        break;
      case 'readSession':
        facts.external = need(world.external, 'profile');
        break;
      case 'clearIntent':
        facts.intentClear = world.intentClear ?? 'cleared';
        break;
      case 'reserveSuccessorTurn':
        facts.reserved = true;
        break;
      case 'checkReadiness':
        facts.readiness = need(world.readiness, 'readiness');
        break;
      case 'releaseAndRestore':
      case 'restore':
        facts.restore = need(world.restore, 'restore result');
        break;
      case 'retire':
        facts.retired = true;
        break;
      case 'markAttempted':
        facts.attemptMark = need(world.attemptMark, 'attempt mark');
        break;
      case 'dispatch':
        facts.dispatch = need(world.dispatch, 'dispatch result');
        break;
      case 'settleSuccessor':
        facts.settled = true;
        break;
    }
  }
  throw new Error(`no end: ${taken.join(' → ')}`);
}

const DETACHED_ANSWER: World = {
  decision: 'answered',
  liveWaiter: false,
  external: false,
  readiness: 'ready',
  attemptMark: 'marked',
  dispatch: 'accepted',
};
const TO_READINESS = ['readSession', 'reserveSuccessorTurn', 'checkReadiness'];
const TO_DISPATCH = [...TO_READINESS, 'markAttempted', 'dispatch'];

describe('the delivery plan, case by case', () => {
  it.each<[string, World, Walked[]]>([
    [
      'live waiter, answered: it clears the intent, then the agent has the answer',
      { decision: 'answered', liveWaiter: true, liveHandOff: 'delivered' },
      ['handToLiveWaiter', 'done:live'],
    ],
    [
      'live waiter, rejected: the same hand-off',
      { decision: 'rejected', liveWaiter: true, liveHandOff: 'delivered' },
      ['handToLiveWaiter', 'done:live'],
    ],
    [
      'live waiter whose confirmation failed: the claim is restored',
      {
        decision: 'answered',
        liveWaiter: true,
        liveHandOff: 'confirm_failed',
        restore: 'restored',
      },
      ['handToLiveWaiter', 'restore', 'done:restored'],
    ],
    [
      'live confirmation failed and the bundle moved on: the answer stays, the intent goes',
      {
        decision: 'answered',
        liveWaiter: true,
        liveHandOff: 'confirm_failed',
        restore: 'moved_on',
      },
      ['handToLiveWaiter', 'restore', 'retire', 'done:restored'],
    ],
    [
      'live waiter left before the hand-off, rejected: persisted as a detached rejection',
      { decision: 'rejected', liveWaiter: true, liveHandOff: 'no_waiter', external: false },
      ['handToLiveWaiter', 'readSession', 'clearIntent', 'done:detached_rejected'],
    ],
    [
      'live waiter left before the hand-off, answered: resumed like any detached answer',
      { ...DETACHED_ANSWER, liveWaiter: true, liveHandOff: 'no_waiter' },
      ['handToLiveWaiter', ...TO_DISPATCH, 'settleSuccessor(accepted)', 'done:resumed'],
    ],
    [
      'detached rejection: persisted, no resume',
      { decision: 'rejected', liveWaiter: false, external: false },
      ['readSession', 'clearIntent', 'done:detached_rejected'],
    ],
    [
      'an external agent’s detached rejection: kept for it to collect, as an answer is',
      { decision: 'rejected', liveWaiter: false, external: true },
      ['readSession', 'clearIntent', 'done:detached_rejected'],
    ],
    [
      'external session: recorded for the agent to collect',
      { decision: 'answered', liveWaiter: false, external: true },
      ['readSession', 'clearIntent', 'done:recorded'],
    ],
    [
      'detached rejection whose claim a recovery took back: nothing recorded',
      { decision: 'rejected', liveWaiter: false, external: false, intentClear: 'taken_back' },
      ['readSession', 'clearIntent', 'done:taken_back'],
    ],
    [
      'external session whose claim a recovery took back: nothing recorded',
      { decision: 'answered', liveWaiter: false, external: true, intentClear: 'taken_back' },
      ['readSession', 'clearIntent', 'done:taken_back'],
    ],
    [
      'detached answer: reserve, ready, mark, dispatch, accepted',
      DETACHED_ANSWER,
      [...TO_DISPATCH, 'settleSuccessor(accepted)', 'done:resumed'],
    ],
    [
      'runtime refuses before the attempt: reservation released, claim restored',
      { ...DETACHED_ANSWER, readiness: 'refused', restore: 'restored' },
      [...TO_READINESS, 'releaseAndRestore', 'done:restored'],
    ],
    [
      'runtime refuses and the bundle moved on meanwhile: released, then retired',
      { ...DETACHED_ANSWER, readiness: 'refused', restore: 'moved_on' },
      [...TO_READINESS, 'releaseAndRestore', 'retire', 'done:restored'],
    ],
    [
      'the reservation is gone at the mark: nothing was sent, the claim is restored',
      { ...DETACHED_ANSWER, attemptMark: 'missing', restore: 'restored' },
      [...TO_READINESS, 'markAttempted', 'restore', 'done:restored'],
    ],
    [
      'the reservation is gone at the mark and the bundle moved on: retired',
      { ...DETACHED_ANSWER, attemptMark: 'missing', restore: 'moved_on' },
      [...TO_READINESS, 'markAttempted', 'restore', 'retire', 'done:restored'],
    ],
    [
      'dispatch not confirmed (refused, failed or out of budget): terminal all the same',
      { ...DETACHED_ANSWER, dispatch: 'unconfirmed' },
      [...TO_DISPATCH, 'settleSuccessor(unconfirmed)', 'done:dispatch_unconfirmed'],
    ],
  ])('%s', (_name, world, steps) => {
    expect(walk(world)).toEqual(steps);
  });
});

describe('the delivery plan over every combination of facts', () => {
  const optional = <T>(values: readonly T[]): (T | undefined)[] => [undefined, ...values];
  const everyFacts: DeliveryFacts[] = [];
  for (const decision of ['answered', 'rejected'] as const)
    for (const liveWaiter of [false, true])
      for (const liveHandOff of optional(['delivered', 'confirm_failed', 'no_waiter'] as const))
        for (const external of optional([false, true]))
          for (const reserved of optional([true]))
            for (const readiness of optional(['ready', 'refused'] as const))
              for (const attemptMark of optional(['marked', 'missing'] as const))
                for (const dispatch of optional(['accepted', 'unconfirmed'] as const))
                  for (const settled of optional([true]))
                    for (const intentClear of optional(['cleared', 'taken_back'] as const))
                      for (const restore of optional(['restored', 'moved_on'] as const))
                        for (const retired of optional([true])) {
                          // Only a waiter that was there can be handed anything.
                          if (!liveWaiter && liveHandOff !== undefined) continue;
                          everyFacts.push({
                            decision,
                            liveWaiter,
                            liveHandOff,
                            external,
                            reserved,
                            readiness,
                            attemptMark,
                            dispatch,
                            settled,
                            intentClear,
                            restore,
                            retired,
                          });
                        }

  it('dispatches only across a durable attempted mark, and only once', () => {
    for (const facts of everyFacts) {
      if (nextDeliveryStep(facts).kind !== 'dispatch') continue;
      expect(facts.attemptMark).toBe('marked');
      expect(facts.dispatch).toBeUndefined();
    }
  });

  it('never puts a claim back once the turn is marked attempted on the detached path', () => {
    const puttingBack = new Set(['restore', 'releaseAndRestore', 'retire']);
    for (const facts of everyFacts) {
      const detached = !facts.liveWaiter || facts.liveHandOff === 'no_waiter';
      if (!detached || facts.attemptMark !== 'marked') continue;
      expect(puttingBack.has(nextDeliveryStep(facts).kind)).toBe(false);
    }
  });

  it('never hands a detached answer to the runtime without first reserving a turn', () => {
    for (const facts of everyFacts) {
      const kind = nextDeliveryStep(facts).kind;
      if (kind === 'checkReadiness' || kind === 'markAttempted') {
        expect(facts.reserved).toBe(true);
      }
    }
  });

  it('reads the session before a detached rejection unless the claim already knew it', () => {
    expect(nextDeliveryStep({ decision: 'rejected', liveWaiter: false, external: false })).toEqual({
      kind: 'clearIntent',
    });
  });

  it('never clears an intent without knowing whether an external agent is to collect it', () => {
    for (const facts of everyFacts) {
      if (nextDeliveryStep(facts).kind !== 'clearIntent') continue;
      const detached = !facts.liveWaiter || facts.liveHandOff === 'no_waiter';
      if (detached) expect(facts.external).toBeDefined();
    }
  });

  it('ends a live hand-off that was delivered at once, whatever else is known', () => {
    for (const facts of everyFacts) {
      if (!facts.liveWaiter || facts.liveHandOff !== 'delivered') continue;
      expect(nextDeliveryStep(facts)).toEqual({ kind: 'done', outcome: 'live' });
    }
  });
});

describe('the verdict of each outcome', () => {
  it.each<[DeliveryOutcome, ReturnType<typeof deliveryVerdict>]>([
    ['live', 'delivered'],
    ['detached_rejected', 'delivered'],
    ['recorded', 'delivered'],
    ['resumed', 'delivered'],
    ['restored', 'not_delivered'],
    ['taken_back', 'not_delivered'],
    ['dispatch_unconfirmed', 'unconfirmed'],
  ])('%s is %s', (outcome, verdict) => {
    expect(deliveryVerdict(outcome)).toBe(verdict);
  });
});
