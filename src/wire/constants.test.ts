import { describe, expect, it } from 'vitest';
import { LIVE_SESSION_STATES, SESSION_STATES, TERMINAL_SESSION_STATES } from './constants.js';

describe('session states', () => {
  it('are each either live or terminal, never both', () => {
    expect([...LIVE_SESSION_STATES, ...TERMINAL_SESSION_STATES].sort()).toEqual(
      [...SESSION_STATES].sort(),
    );
  });
});
