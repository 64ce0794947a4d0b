/**
 * A person removes a due follow-up from the queue and the session write that
 * was to say so is refused by the storage. The follow-up's removal is the
 * registry's and final (its owner settled, rejected), so it stands: the queue
 * change is said all the same, or a watching web app (which reloads the
 * queue on the session's revision) keeps listing a follow-up that is gone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { StatementFaults } from '../support/statement-faults.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a follow-up removal whose write is refused on %s', (driver) => {
  let h: TurnsHarness;
  let faults: StatementFaults;

  beforeEach(async () => {
    faults = new StatementFaults();
    h = await turnsHarness(driver, { plugins: [faults] });
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** A session with an action's follow-up due and waiting in its queue (the agent busy). */
  async function queuedFollowUp(): Promise<{ sessionId: string; requestId: string }> {
    const { session, task } = await h.createTask('first');
    await h.settled();
    const action = h.turns.userInputs.request({
      kind: 'action',
      sessionId: session.id,
      taskId: task.id,
      title: 'Connect the database',
      instructions: 'Open the console and add the key.',
    });
    if (!action.ok) throw new Error('request refused');
    h.host.endTurn(session.id);
    await h.settled();
    const sent = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'meanwhile',
      admission_key: 'meanwhile',
    });
    expect(sent.status).toBeLessThan(300);
    await h.settled();
    const heard = queueChanges(session.id);
    const done = await h.request('POST', `/api/v1/user-inputs/${action.id}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    await h.turns.userInputs.drain();
    expect(h.turns.userInputs.get(action.id)).toMatchObject({ status: 'due', queued: true });
    // Its joining the queue is told by a write of its own, after the registry's change.
    await eventually(() => queueChanges(session.id) > heard);
    return { sessionId: session.id, requestId: action.id };
  }

  function queueChanges(sessionId: string): number {
    return h.events.events.filter(
      (event) => event.type === 'queue.changed' && event.session_id === sessionId,
    ).length;
  }

  it('tells the queue change of a removal that stands', async () => {
    const { sessionId, requestId } = await queuedFollowUp();
    const before = queueChanges(sessionId);

    faults.failNext('update', 'task_sessions');
    const removed = await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue/${requestId}`);
    await h.turns.userInputs.drain();
    expect(faults.failed).toBe(1);

    // The follow-up is gone: its owner settled as rejected, the queue lists it no more.
    expect(h.turns.userInputs.get(requestId)).toMatchObject({
      status: 'settled',
      settled_reason: 'rejected',
    });
    const queue = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/queue`)
    ).json()) as {
      items: unknown[];
    };
    expect(queue.items).toEqual([]);
    // So the person hears it went, and so does every watcher of the session.
    expect(queueChanges(sessionId)).toBe(before + 1);
    expect(removed.status).toBe(200);
  });

  it('tells the queue change of a clear whose follow-ups went and messages stayed', async () => {
    const { sessionId, requestId } = await queuedFollowUp();
    const later = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'later',
      admission_key: 'later',
    });
    expect(later.status).toBe(202);
    const before = queueChanges(sessionId);

    faults.failNext('update', 'task_sessions');
    const cleared = await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue`);
    await h.turns.userInputs.drain();
    expect(faults.failed).toBe(1);

    // The clear failed (503): the person's message is still queued; the follow-up is gone.
    expect(cleared.status).toBe(503);
    expect(h.turns.userInputs.get(requestId)).toMatchObject({
      status: 'settled',
      settled_reason: 'rejected',
    });
    const queue = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/queue`)
    ).json()) as {
      items: { text: string }[];
    };
    expect(queue.items.map((item) => item.text)).toEqual(['later']);
    expect(queueChanges(sessionId)).toBe(before + 1);
  });
});
