/**
 * The rules behind the session view's Stop and Delete, in Node: when Stop is
 * offered, how a Stop ended as the read model learns it from events (the
 * cancelled turn's row, or the turn over without one), why an action failed,
 * and where a tab goes after a delete.
 */
import { describe, expect, it } from 'vitest';
import type { ApiFailure } from '../../web/src/model/api.js';
import { initialState, transitions, type ModelState } from '../../web/src/model/read-model.js';
import {
  actionFailureOf,
  pathAfterDeletion,
  stopProgress,
  turnIsOpen,
} from '../../web/src/model/session-actions.js';
import type { MessageView, SessionState, SessionView } from '../../web/src/model/types.js';

const S = 'session-1';
const T = 'task-1';

function ts(n: number): string {
  return `2026-01-01T00:00:${String(n).padStart(2, '0')}.000000000Z`;
}

function sessionView(id: string, state: SessionState, created: number): SessionView {
  return {
    id,
    task_id: T,
    agent_profile: 'demo',
    state,
    failure: null,
    revision: 1,
    pending_action: null,
    created_at: ts(created),
    updated_at: ts(created),
  };
}

function message(
  id: string,
  turnId: string,
  at: number,
  extra: Partial<MessageView> = {},
): MessageView {
  return {
    id,
    session_id: S,
    task_id: T,
    turn_id: turnId,
    type: 'message',
    author: 'user',
    content: id,
    metadata: {},
    requests_input: false,
    created_at: ts(at),
    updated_at: ts(at),
    ...extra,
  };
}

/** What the server writes when a turn ends cancelled: its row, then the move to idle. */
const CANCELLED_NOTE = {
  type: 'status',
  author: 'system',
  content: 'Cancelled by Ada',
  metadata: { turn_outcome: 'cancelled' },
} satisfies Partial<MessageView>;

function added(state: ModelState, row: MessageView, revision: number): ModelState {
  return transitions.event(state, {
    type: 'message.added',
    message: row,
    revision,
    pending_action: null,
    session_id: S,
    task_id: T,
  });
}

function moved(state: ModelState, to: SessionState, revision: number): ModelState {
  return transitions.event(state, {
    type: 'session.state_changed',
    state: to,
    revision,
    pending_action: null,
    session_id: S,
    task_id: T,
  });
}

/** A session whose first turn runs, its prompt in the transcript. */
function running(): ModelState {
  let state = transitions.subscribed(initialState());
  state = transitions.sessions(state, [sessionView(S, 'running', 1)]);
  return added(state, message('prompt', 'turn-1', 2), 2);
}

describe('Stop', () => {
  it('is offered while the turn is open: running, or waiting on its question', () => {
    const offered = (
      [
        'idle',
        'starting',
        'running',
        'waiting_for_input',
        'completed',
        'failed',
        'cancelled',
      ] as const
    ).filter((state) => turnIsOpen(state));
    expect(offered).toEqual(['running', 'waiting_for_input']);
    expect(turnIsOpen(undefined)).toBe(false);
  });

  it('is under way until the turn ends, and stopped once it ends with its cancelled row', () => {
    let state = running();
    expect(stopProgress(state, S, 'turn-1')).toBe('stopping');
    state = added(state, message('note', 'turn-1', 3, CANCELLED_NOTE), 3);
    state = moved(state, 'idle', 3);
    expect(stopProgress(state, S, 'turn-1')).toBe('stopped');
    // The queue going on afterwards does not undo what the Stop did.
    state = added(state, message('next', 'turn-2', 4), 4);
    state = moved(state, 'running', 4);
    expect(stopProgress(state, S, 'turn-1')).toBe('stopped');
  });

  it('found nothing running when the turn ended on its own', () => {
    let state = running();
    state = added(state, message('reply', 'turn-1', 3, { author: 'agent' }), 3);
    state = moved(state, 'idle', 3);
    expect(stopProgress(state, S, 'turn-1')).toBe('not_running');
  });

  it('found nothing of its turn running when the next one had started meanwhile', () => {
    let state = running();
    state = moved(state, 'idle', 3);
    state = added(state, message('next', 'turn-2', 4), 4);
    state = moved(state, 'running', 4);
    expect(stopProgress(state, S, 'turn-1')).toBe('not_running');
  });

  it('judges the newest turn when none was known at the press', () => {
    let state = running();
    expect(stopProgress(state, S, undefined)).toBe('stopping');
    state = added(state, message('note', 'turn-1', 3, CANCELLED_NOTE), 3);
    state = moved(state, 'idle', 3);
    expect(stopProgress(state, S, undefined)).toBe('stopped');
  });

  it('is moot once the session is deleted', () => {
    const state = transitions.deleted(running(), {
      type: 'session.deleted',
      session_id: S,
      task_id: T,
      revision: 5,
      pending_action: null,
      workspace_id: 'w',
    });
    expect(stopProgress(state, S, 'turn-1')).toBe('gone');
  });
});

describe('why an action failed', () => {
  const http = (status: number, code: string): ApiFailure => ({
    ok: false,
    kind: 'http',
    status,
    code,
    error: 'said',
  });

  it('tells the storage refusing from the server stopping, a missing session and no reply', () => {
    expect(actionFailureOf(http(503, 'temporarily_unavailable'))).toBe('storage');
    expect(actionFailureOf(http(503, 'unavailable'))).toBe('shutting_down');
    expect(actionFailureOf(http(404, 'not_found'))).toBe('not_found');
    expect(actionFailureOf({ ok: false, kind: 'network', error: 'Failed to fetch' })).toBe(
      'network',
    );
    expect(actionFailureOf(http(500, 'internal'))).toBe('other');
    expect(actionFailureOf(http(403, 'person_required'))).toBe('other');
  });
});

describe('after a delete', () => {
  function withSessions(...views: SessionView[]): ModelState {
    return transitions.sessions(transitions.subscribed(initialState()), views);
  }

  it('goes to the task’s newest other session', () => {
    const state = withSessions(
      sessionView('old', 'idle', 1),
      sessionView(S, 'idle', 2),
      sessionView('new', 'completed', 3),
    );
    expect(pathAfterDeletion(state, { sessionId: S, taskId: T, withTask: false })).toBe(
      '/sessions/new',
    );
  });

  it('goes to the inbox when the task has no other session, or went too', () => {
    const alone = withSessions(sessionView(S, 'idle', 1));
    expect(pathAfterDeletion(alone, { sessionId: S, taskId: T, withTask: false })).toBe('/');
    const two = withSessions(sessionView(S, 'idle', 1), sessionView('other', 'idle', 2));
    expect(pathAfterDeletion(two, { sessionId: S, taskId: T, withTask: true })).toBe('/');
  });
});
