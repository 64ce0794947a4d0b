/**
 * A task's delete that fails part way, while a person's delete of one of its
 * sessions it had not reached is under way: the failed delete ends only the
 * deletion marks it set, so the other delete's mark stands until that delete
 * ends, and the turn that delete's stop ended still waits for it (it writes
 * nothing once the rows are gone). Each stop is held by the test, so the race
 * runs in one order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/store/index.js';
import type { ClarionEvent } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a task delete failing beside a session delete on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** What a turn's end writes of the session that the deletion's stop must not leave. */
  function turnEndOf(sessionId: string): ClarionEvent[] {
    return h.events.events.filter(
      (event) =>
        event.session_id === sessionId &&
        ((event.type === 'message.added' && event.message.type === 'status') ||
          (event.type === 'session.state_changed' && event.state === 'idle')),
    );
  }

  it('leaves the mark of the session it never reached to that session’s own delete', async () => {
    const { session: first, task } = await h.createTask('first');
    const second = await createSession(h.store, { taskId: task.id, agentProfile: 'demo' });
    const sent = await h.request('POST', `/api/v1/sessions/${second.id}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(sent.status).toBeLessThan(300);
    await h.settled();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    const idleBefore = turnEndOf(second.id).length;

    // The person deletes the second session: its stop waits.
    const secondStop = h.host.holdStop(second.id);
    const sessionDelete = h.request('DELETE', `/api/v1/sessions/${second.id}`);
    await secondStop.reached;
    // Meanwhile the task's delete reaches its first session, whose stop fails.
    const firstStop = h.host.holdStop(first.id);
    const taskDelete = h.request('DELETE', `/api/v1/tasks/${task.id}`);
    await firstStop.reached;
    firstStop.refuse(new Error('the agent would not stop'));
    expect((await taskDelete).status).toBe(500);

    // The session's own delete is still under way: its mark is its own to end.
    expect(h.turns.cancellations.deletionUnderWay(second.id)).toBeDefined();

    secondStop.release();
    expect((await sessionDelete).status).toBe(200);
    await h.settled();
    await eventually(() =>
      h.events.events.some(
        (event) => event.type === 'session.deleted' && event.session_id === second.id,
      ),
    );
    expect(turnEndOf(second.id)).toHaveLength(idleBefore);
    expect(h.turns.cancellations.deletionUnderWay(second.id)).toBeUndefined();
  });
});
