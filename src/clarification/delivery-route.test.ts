import { describe, expect, it } from 'vitest';
import { deliveryRoute, type RouteFacts } from './delivery-route.js';

const facts = (over: Partial<RouteFacts>): RouteFacts => ({
  here: 'B',
  waiterHere: false,
  askedOn: undefined,
  holder: undefined,
  origin: 'B',
  ...over,
});

describe('deliveryRoute', () => {
  it('delivers where a live wait runs, whoever holds the session', () => {
    expect(deliveryRoute(facts({ waiterHere: true, askedOn: 'A', holder: 'C' }))).toEqual({
      kind: 'here',
    });
  });

  it('sends the claim to the replica the wait began on, before the lease holder', () => {
    expect(deliveryRoute(facts({ askedOn: 'A', holder: 'C' }))).toEqual({
      kind: 'elsewhere',
      replica: 'A',
    });
  });

  it('on the replica the wait began on, without the wait, says the wait ended', () => {
    expect(deliveryRoute(facts({ askedOn: 'B', holder: 'C' }))).toEqual({ kind: 'waitEnded' });
  });

  it('without a wait, the lease holder resumes the agent', () => {
    expect(deliveryRoute(facts({ holder: 'C' }))).toEqual({ kind: 'elsewhere', replica: 'C' });
    expect(deliveryRoute(facts({ holder: 'B', origin: 'A' }))).toEqual({ kind: 'here' });
  });

  it('without a wait or a holder, the replica that claimed it delivers', () => {
    expect(deliveryRoute(facts({}))).toEqual({ kind: 'here' });
    expect(deliveryRoute(facts({ origin: 'A' }))).toEqual({ kind: 'elsewhere', replica: 'A' });
  });

  it('never sends a claim back to where the route came from once the wait there ended', () => {
    // A's wait ended: A marked the claim detached, so askedOn is gone for everyone.
    const afterDetach = { askedOn: undefined, holder: 'C', origin: 'A' };
    expect(deliveryRoute(facts({ ...afterDetach, here: 'A' }))).toEqual({
      kind: 'elsewhere',
      replica: 'C',
    });
    expect(deliveryRoute(facts({ ...afterDetach, here: 'C' }))).toEqual({ kind: 'here' });
  });
});
