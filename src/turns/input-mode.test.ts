import { describe, expect, it } from 'vitest';
import { SESSION_STATES } from '../store/index.js';
import { deriveSessionInputMode } from './input-mode.js';

describe('deriveSessionInputMode', () => {
  it.each([
    ['idle', 'send'],
    ['running', 'queue'],
    ['waiting_for_input', 'queue'],
    ['completed', 'refuse'],
    ['failed', 'refuse'],
    ['cancelled', 'refuse'],
  ] as const)('%s → %s', (state, mode) => {
    expect(deriveSessionInputMode({ state, agent_profile: 'demo' }).mode).toBe(mode);
  });

  it('sends to a session waiting on a question its agent asked between turns', () => {
    const waiting = { state: 'waiting_for_input', agent_profile: 'demo' } as const;
    expect(deriveSessionInputMode({ ...waiting, turnRunning: false }).mode).toBe('send');
    expect(deriveSessionInputMode({ ...waiting, turnRunning: true }).mode).toBe('queue');
  });

  it('covers every state', () => {
    for (const state of SESSION_STATES) {
      expect(deriveSessionInputMode({ state, agent_profile: 'demo' })).toBeDefined();
    }
  });

  it('refuses sessions of agents Clarion does not host, whatever their state', () => {
    for (const state of SESSION_STATES) {
      expect(deriveSessionInputMode({ state, agent_profile: 'external' })).toMatchObject({
        mode: 'refuse',
      });
    }
  });
});
