/**
 * What a page says of a question or a session this person can no longer
 * see, in Node: a question line whose bundle was forgotten after a 404 says
 * it is no longer available to them, never that the conversation moved on;
 * a session the page held and the server now refuses (its transcript read
 * answered 404, or they are in no workspace) is lost to them, unlike one
 * deleted or never theirs, and a later successful read gives it back.
 */
import { describe, expect, it } from 'vitest';
import { questionOutcome } from '../../web/src/model/question-outcome.js';
import {
  initialState,
  sessionPresence,
  transitions,
  type ModelState,
} from '../../web/src/model/read-model.js';
import type { MessageView, RowStatus, SessionView } from '../../web/src/model/types.js';

const S = 'session-1';
const T = 'task-1';
const AT = '2026-01-01T00:00:01.000000000Z';

const view: SessionView = {
  id: S,
  task_id: T,
  agent_profile: 'demo',
  state: 'waiting_for_input',
  failure: null,
  revision: 1,
  pending_action: 'clarification',
  created_at: AT,
  updated_at: AT,
};

const said: MessageView = {
  id: 'row-1',
  session_id: S,
  task_id: T,
  turn_id: 'turn-1',
  type: 'message',
  author: 'agent',
  content: 'hello',
  metadata: {},
  requests_input: false,
  created_at: AT,
  updated_at: AT,
};

function held(): ModelState {
  return transitions.sessions(transitions.subscribed(initialState()), [view]);
}

describe('a question line', () => {
  it('says a pending question whose bundle was forgotten is no longer available, not moved on', () => {
    expect(questionOutcome('pending', 'forgotten', undefined)).toBe('unavailable');
    expect(questionOutcome('pending', 'active', undefined)).toBe('waiting');
    expect(questionOutcome('pending', 'inactive', undefined)).toBe('superseded');
  });

  it('says a settled question as its row does, whatever the page knows of its bundle', () => {
    const cases: [RowStatus, unknown, string][] = [
      ['answered', undefined, 'answered'],
      ['rejected', undefined, 'skipped'],
      ['expired', undefined, 'expired'],
      ['expired', 'exited', 'expired'],
      ['expired', 'owner_deleted', 'expiredOwnerDeleted'],
      ['expired', 'owner_removed', 'expiredOwnerRemoved'],
      ['cancelled', undefined, 'cancelled'],
    ];
    for (const [status, expiredBy, outcome] of cases) {
      for (const bundle of ['active', 'inactive', 'forgotten'] as const) {
        expect(questionOutcome(status, bundle, expiredBy)).toBe(outcome);
      }
    }
  });
});

describe('a session’s presence', () => {
  it('is shown while held and not refused', () => {
    expect(sessionPresence(held(), S)).toEqual({ kind: 'shown' });
  });

  it('is lost once the server refuses the transcript of a session the page held', () => {
    expect(sessionPresence(transitions.sessionMissing(held(), S), S)).toEqual({
      kind: 'access_lost',
    });
  });

  it('is lost for every session once the person is in no workspace', () => {
    const none = transitions.connection(held(), 'no_workspace');
    expect(sessionPresence(none, S)).toEqual({ kind: 'access_lost' });
    expect(sessionPresence(transitions.connection(none, 'live'), S)).toEqual({ kind: 'shown' });
  });

  it('is not found when the page never held it, and deleted as its event said', () => {
    const state = transitions.subscribed(initialState());
    expect(sessionPresence(transitions.sessionMissing(state, S), S)).toEqual({
      kind: 'not_found',
    });
    const deleted = transitions.deleted(held(), {
      type: 'task.deleted',
      session_id: S,
      task_id: T,
      revision: 2,
      pending_action: null,
      workspace_id: 'w',
    });
    expect(sessionPresence(deleted, S)).toEqual({ kind: 'deleted', how: 'task.deleted' });
    // A transcript read that raced the deletion never brings it back.
    expect(sessionPresence(transitions.messages(deleted, S, [said], true), S)).toEqual({
      kind: 'deleted',
      how: 'task.deleted',
    });
  });

  it('is shown again when a later transcript read succeeds (access given back)', () => {
    const lost = transitions.sessionMissing(held(), S);
    expect(sessionPresence(transitions.messages(lost, S, [said], true), S)).toEqual({
      kind: 'shown',
    });
  });
});
