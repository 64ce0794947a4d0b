import { describe, expect, it } from 'vitest';
import {
  decideInterruptedTurn,
  type BundleFacts,
  type InterruptedTurnFacts,
} from './unconfirmed-deliveries.js';

function bundle(pendingId: string, overrides: Partial<BundleFacts> = {}): BundleFacts {
  return {
    pendingId,
    status: 'answered',
    deliveryPending: false,
    createdAt: '2026-01-01T00:00:01.000000000Z',
    respondedAt: '2026-01-01T00:00:05.000000000Z',
    ...overrides,
  };
}

function turn(overrides: Partial<InterruptedTurnFacts> = {}): InterruptedTurnFacts {
  return { turnId: 't1', external: false, current: true, asked: [], cutOff: false, ...overrides };
}

describe('decideInterruptedTurn', () => {
  it('leaves an external agent’s turn open, whatever it holds', () => {
    expect(decideInterruptedTurn(turn({ external: true, asked: [bundle('p1')] }))).toEqual({
      kind: 'leave_open',
      reason: 'external_agent',
    });
  });

  it('closes a turn with nothing handed off, without a note', () => {
    expect(decideInterruptedTurn(turn())).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
    expect(decideInterruptedTurn(turn({ asked: [bundle('p1', { status: 'pending' })] }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
  });

  it('notes an answer a live waiter took in the current turn', () => {
    expect(decideInterruptedTurn(turn({ asked: [bundle('p1')] }))).toEqual({
      kind: 'close',
      unconfirmed: ['p1'],
      interrupted: false,
    });
  });

  it.each([
    ['rejected', { status: 'rejected' }],
    ['expired', { status: 'expired' }],
    ['cancelled', { status: 'cancelled' }],
    ['malformed (rows disagree)', { status: 'mixed' }],
    ['still carrying its intent (never handed off)', { deliveryPending: true }],
  ] as const)('does not note a bundle that is %s', (_name, overrides) => {
    expect(decideInterruptedTurn(turn({ asked: [bundle('p1', overrides)] }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
  });

  it('does not note a live answer when the turn is no longer current (a successor carried it)', () => {
    expect(decideInterruptedTurn(turn({ current: false, asked: [bundle('p1')] }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
  });

  it('does not note an answer followed by a later ask in the same turn: the agent ran on', () => {
    const later = bundle('p2', {
      status: 'pending',
      createdAt: '2026-01-01T00:00:09.000000000Z',
    });
    expect(decideInterruptedTurn(turn({ asked: [bundle('p1'), later] }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
  });

  it('notes both of two asks answered side by side (each asked before the other was answered)', () => {
    const second = bundle('p2', {
      createdAt: '2026-01-01T00:00:02.000000000Z',
      respondedAt: '2026-01-01T00:00:06.000000000Z',
    });
    expect(decideInterruptedTurn(turn({ asked: [bundle('p1'), second] }))).toEqual({
      kind: 'close',
      unconfirmed: ['p1', 'p2'],
      interrupted: false,
    });
  });

  it('notes the answer a successor turn carried when the agent asked nothing there', () => {
    expect(decideInterruptedTurn(turn({ carried: bundle('p0') }))).toEqual({
      kind: 'close',
      unconfirmed: ['p0'],
      interrupted: false,
    });
    // Whether or not it is still current: its prompt was the hand-off.
    expect(decideInterruptedTurn(turn({ current: false, carried: bundle('p0') }))).toEqual({
      kind: 'close',
      unconfirmed: ['p0'],
      interrupted: false,
    });
  });

  it('does not note the carried answer when the agent asked again in the successor turn', () => {
    expect(
      decideInterruptedTurn(
        turn({ carried: bundle('p0'), asked: [bundle('p1', { status: 'pending' })] }),
      ),
    ).toEqual({ kind: 'close', unconfirmed: [], interrupted: false });
    // The newer ask, answered live, is the one left unconfirmed.
    expect(decideInterruptedTurn(turn({ carried: bundle('p0'), asked: [bundle('p1')] }))).toEqual({
      kind: 'close',
      unconfirmed: ['p1'],
      interrupted: false,
    });
  });

  it('notes that a turn the stop cut off mid-work ended and its message must be sent again', () => {
    expect(decideInterruptedTurn(turn({ cutOff: true }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: true,
    });
    // An open question stays answerable, but the turn that asked it ended all the same.
    expect(
      decideInterruptedTurn(turn({ cutOff: true, asked: [bundle('p1', { status: 'pending' })] })),
    ).toEqual({ kind: 'close', unconfirmed: [], interrupted: true });
    // The agent asked again after its successor's prompt: that prompt is not what was lost.
    expect(
      decideInterruptedTurn(
        turn({ cutOff: true, carried: bundle('p0'), asked: [bundle('p1', { status: 'pending' })] }),
      ),
    ).toEqual({ kind: 'close', unconfirmed: [], interrupted: true });
  });

  it('writes one note for a cut-off turn whose answer is unconfirmed: the answer’s', () => {
    expect(decideInterruptedTurn(turn({ cutOff: true, asked: [bundle('p1')] }))).toEqual({
      kind: 'close',
      unconfirmed: ['p1'],
      interrupted: false,
    });
    expect(decideInterruptedTurn(turn({ cutOff: true, carried: bundle('p0') }))).toEqual({
      kind: 'close',
      unconfirmed: ['p0'],
      interrupted: false,
    });
  });

  it('leaves an external agent’s turn open without a note, even one at work', () => {
    expect(decideInterruptedTurn(turn({ external: true, cutOff: true }))).toEqual({
      kind: 'leave_open',
      reason: 'external_agent',
    });
  });

  it('does not note a carried bundle that is not a handed-off answer', () => {
    expect(
      decideInterruptedTurn(turn({ carried: bundle('p0', { deliveryPending: true }) })),
    ).toEqual({ kind: 'close', unconfirmed: [], interrupted: false });
    expect(decideInterruptedTurn(turn({ carried: bundle('p0', { status: 'pending' }) }))).toEqual({
      kind: 'close',
      unconfirmed: [],
      interrupted: false,
    });
  });
});
