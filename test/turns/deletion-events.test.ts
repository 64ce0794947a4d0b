/**
 * What subscribers hear when a person deletes a session or a task while its
 * agent runs a turn: that it is gone, last and at a revision after every
 * other, and nothing of the turn the deletion's own stop ended. Events are
 * per session, so a task with no session left goes without one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, getTask } from '../../src/store/index.js';
import type { ClarionEvent } from '../../src/wire/index.js';
import { eventually, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('deleting a session or a task on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  function eventsOf(sessionId: string): ClarionEvent[] {
    return h.events.events.filter(
      (event) => event.session_id === sessionId && !event.type.startsWith('user_input.'),
    );
  }

  /** The session's events end with `type`, newer than every other, with nothing waiting. */
  function expectGoneLast(sessionId: string, type: 'session.deleted' | 'task.deleted') {
    const events = eventsOf(sessionId);
    const last = events.at(-1);
    expect(last).toMatchObject({ type, session_id: sessionId, pending_action: null });
    const before = events.slice(0, -1).map((event) => event.revision);
    expect(last?.revision).toBeGreaterThan(Math.max(...before));
    expect(events.filter((event) => event.type.endsWith('.deleted'))).toHaveLength(1);
  }

  /** What the deletion's own stop of the agent must not leave: a failed turn, an idle session. */
  function turnEndOf(sessionId: string): ClarionEvent[] {
    return eventsOf(sessionId).filter(
      (event) =>
        (event.type === 'message.added' && event.message.type === 'error') ||
        (event.type === 'session.state_changed' && event.state === 'idle'),
    );
  }

  it('tells the session is gone, and writes nothing of the turn the deletion stopped', async () => {
    const { session, task } = await h.createTask('first');
    const { workspace_id: workspaceId } = (await getTask(h.store, task.id)) ?? {};
    await h.settled();
    expect(h.host.isStarted(session.id)).toBe(true);
    const idleBefore = turnEndOf(session.id).length;

    expect((await h.request('DELETE', `/api/v1/sessions/${session.id}`)).status).toBe(200);
    await h.settled();

    expectGoneLast(session.id, 'session.deleted');
    expect(eventsOf(session.id).at(-1)).toMatchObject({
      task_id: task.id,
      workspace_id: workspaceId,
    });
    expect(turnEndOf(session.id)).toHaveLength(idleBefore);
  });

  it('ends the wait on a question of the session once it is deleted', async () => {
    const { session } = await h.createTask('first');
    await h.settled();
    const asking = h.service.ask(session.id, TWO_QUESTIONS);
    await eventually(() =>
      h.events.events.some(
        (event) => event.type === 'message.added' && event.message.metadata.pending_id,
      ),
    );

    expect((await h.request('DELETE', `/api/v1/sessions/${session.id}`)).status).toBe(200);

    expect(await asking).toMatchObject({ ok: true, outcome: 'open', reason: 'cancelled' });
  });

  it('tells each of a deleted task’s sessions that it went with its task', async () => {
    const { session, task } = await h.createTask('first');
    const second = await createSession(h.store, { taskId: task.id, agentProfile: 'demo' });
    const { workspace_id: workspaceId } = (await getTask(h.store, task.id)) ?? {};
    await h.settled();
    const idleBefore = turnEndOf(session.id).length;

    expect((await h.request('DELETE', `/api/v1/tasks/${task.id}`)).status).toBe(200);
    await h.settled();

    for (const sessionId of [session.id, second.id]) {
      expectGoneLast(sessionId, 'task.deleted');
      expect(eventsOf(sessionId).at(-1)).toMatchObject({ workspace_id: workspaceId });
    }
    expect(turnEndOf(session.id)).toHaveLength(idleBefore);
  });

  it('announces a task deleted with no session left by no event: events are per session', async () => {
    const { session, task } = await h.createTask();
    expect((await h.request('DELETE', `/api/v1/sessions/${session.id}`)).status).toBe(200);
    await h.settled();
    const heard = h.events.events.length;

    expect((await h.request('DELETE', `/api/v1/tasks/${task.id}`)).status).toBe(200);
    await h.settled();

    // What README's events row says: other clients drop it at their next task list.
    expect(h.events.events.slice(heard)).toEqual([]);
    const { tasks } = (await (await h.request('GET', '/api/v1/tasks')).json()) as {
      tasks: { id: string }[];
    };
    expect(tasks.map((listed) => listed.id)).not.toContain(task.id);
  });
});
