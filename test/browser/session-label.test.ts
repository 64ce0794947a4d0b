/** The session chip's label: the wait a person sees, not the agent process's state. */
import { describe, expect, it } from 'vitest';
import type { BundleState, SessionEntry } from '../../web/src/model/read-model.js';
import { sessionLabel } from '../../web/src/model/session-label.js';

function session(overrides: Partial<SessionEntry>): SessionEntry {
  return {
    id: 's',
    task_id: 't',
    agent_profile: 'demo',
    state: 'running',
    revision: 1,
    state_revision: 1,
    pending_action: null,
    latest_turn: undefined,
    created_at: '',
    messages: {},
    messages_loaded: true,
    ...overrides,
  };
}

const bundle = (detached: boolean) => ({ detached }) as BundleState;

describe('sessionLabel', () => {
  it('says an agent that is still starting is starting', () => {
    expect(sessionLabel(session({ state: 'starting' }), undefined)).toBe('starting');
  });

  it('names what the running agent waits on', () => {
    expect(sessionLabel(session({ pending_action: 'consent' }), undefined)).toBe(
      'waiting_permission',
    );
    expect(sessionLabel(session({ pending_action: 'action' }), undefined)).toBe('waiting_action');
    expect(sessionLabel(session({ pending_action: 'clarification' }), undefined)).toBe(
      'waiting_answer',
    );
    expect(sessionLabel(session({ state: 'waiting_for_input' }), bundle(false))).toBe(
      'waiting_answer',
    );
  });

  it('learns a waiting consent or action from the requests the page shows', () => {
    expect(sessionLabel(session({}), undefined, ['action'])).toBe('waiting_action');
    expect(sessionLabel(session({}), undefined, ['action', 'consent'])).toBe('waiting_permission');
  });

  it('says a detached question waits while the agent will resume', () => {
    expect(sessionLabel(session({ state: 'idle' }), bundle(true))).toBe('waiting_detached');
  });

  it('keeps the state when nothing waits, and an ended session stays ended', () => {
    expect(sessionLabel(session({}), undefined)).toBe('running');
    expect(sessionLabel(session({ state: 'idle' }), undefined)).toBe('idle');
    expect(sessionLabel(session({ state: 'failed', pending_action: 'consent' }), undefined)).toBe(
      'failed',
    );
  });

  it('says the session is loading until its state is read, never that it is unknown', () => {
    expect(sessionLabel(undefined, undefined)).toBe('loading');
    expect(sessionLabel(session({ state: undefined, state_revision: -1 }), undefined)).toBe(
      'loading',
    );
  });

  it('says unknown only for a state this build does not know', () => {
    const newer = session({ state: 'hibernating' as SessionEntry['state'] });
    expect(sessionLabel(newer, undefined)).toBe('unknown');
    // What waits on a person is still named whatever the state.
    expect(sessionLabel(newer, undefined, ['consent'])).toBe('waiting_permission');
  });
});
