import { describe, expect, it } from 'vitest';
import { armPause, pausePoint } from './failpoints.js';

const POINT = 'wait_for_answer.before_live_wait';
/** Far beyond any test here: only the test that means to reach it does. */
const LONG_BOUND_MS = 60_000;

describe('pause points', () => {
  it('give nothing to await unless armed', () => {
    expect(pausePoint(POINT)).toBeUndefined();
  });

  it('hold the next arrival until released, and only that one', async () => {
    const paused = armPause(POINT, LONG_BOUND_MS);
    const held = pausePoint(POINT);
    expect(held).toBeInstanceOf(Promise);
    await paused.reached;
    expect(pausePoint(POINT)).toBeUndefined();
    let goneOn = false;
    void held?.then(() => {
      goneOn = true;
    });
    await Promise.resolve();
    expect(goneOn).toBe(false);
    paused.release();
    await held;
    expect(goneOn).toBe(true);
  });

  it('let the arrival go by themselves once their bound passes', async () => {
    armPause(POINT, 10);
    await pausePoint(POINT);
  });

  it('are disarmed by a release before anything reached them', () => {
    armPause(POINT, LONG_BOUND_MS).release();
    expect(pausePoint(POINT)).toBeUndefined();
  });
});
