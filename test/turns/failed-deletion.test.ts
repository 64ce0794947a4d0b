/**
 * A deletion whose rows' delete the storage refuses, after it stopped the
 * session's agent: the person hears 503, and the session is left as a
 * stopped agent leaves it, not running with no agent until a restart. Its
 * turn ended cancelled (no failure), it is idle, and its queue goes on with
 * a new agent. So it is when the turn's end is handled only after the
 * deletion ended, behind an earlier report the storage made wait. What was
 * open in it stays open: its questions answerable (detached, as a stop
 * leaves them), its follow-up due and then sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_EVENT_RETRY_BASE_MS } from '../../src/tunables.js';
import type { ClarionEvent } from '../../src/wire/index.js';
import { eventually, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { ClockTimers, fakeClock } from '../support/fakes.js';
import { StatementFaults } from '../support/statement-faults.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

const STORAGE_UNAVAILABLE = 503;

describe.each(DRIVERS)('a deletion the storage refuses on %s', (driver) => {
  let h: TurnsHarness;
  let faults: StatementFaults;
  let timers: ClockTimers;

  beforeEach(async () => {
    faults = new StatementFaults();
    timers = new ClockTimers(fakeClock());
    h = await turnsHarness(driver, { plugins: [faults], timers });
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** The session's rows as author, type and text. */
  async function transcript(sessionId: string) {
    const { messages } = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages`)
    ).json()) as { messages: { author: string; type: string; content: string }[] };
    return messages.map((row) => [row.author, row.type, row.content]);
  }

  /** The states the session's subscribers heard it move to, from `since` on. */
  function statesHeard(sessionId: string, since: number): string[] {
    return h.events.events
      .slice(since)
      .filter(
        (event): event is Extract<ClarionEvent, { type: 'session.state_changed' }> =>
          event.type === 'session.state_changed' && event.session_id === sessionId,
      )
      .map((event) => event.state);
  }

  it('leaves the session as a stop does: 503, its turn cancelled, idle, its queue going on', async () => {
    const { session } = await h.createBusyTask('second');
    const heard = h.events.events.length;

    faults.failNext('delete', 'task_sessions');
    const refused = await h.request('DELETE', `/api/v1/sessions/${session.id}`);
    expect(refused.status).toBe(STORAGE_UNAVAILABLE);
    await h.settled();

    expect(faults.failed).toBe(1);
    expect(await transcript(session.id)).toEqual([
      ['user', 'message', 'first'],
      ['system', 'status', 'Cancelled'],
      ['user', 'message', 'second'],
    ]);
    const states = statesHeard(session.id, heard);
    expect([states[0], states.at(-1)]).toEqual(['idle', 'running']);
    // The queued message went to a new agent: the deletion's stop ended the first.
    expect(h.host.launches).toHaveLength(2);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
  });

  /** The pending ID of the question the session's agent asked, once it is asked. */
  async function askedPendingId(): Promise<string> {
    let pendingId: unknown;
    await eventually(() => {
      const asked = h.events.events.find(
        (event) => event.type === 'message.added' && event.message.metadata.pending_id,
      );
      pendingId = asked?.type === 'message.added' && asked.message.metadata.pending_id;
      return typeof pendingId === 'string';
    });
    return pendingId as string;
  }

  it('leaves its question open: the agent’s wait ends as a stop ends it, still answerable', async () => {
    const { session } = await h.createTask('first');
    await h.settled();
    const asking = h.service.ask(session.id, TWO_QUESTIONS);
    const pendingId = await askedPendingId();

    faults.failNext('delete', 'task_sessions');
    const refused = await h.request('DELETE', `/api/v1/sessions/${session.id}`);
    expect(refused.status).toBe(STORAGE_UNAVAILABLE);
    await h.settled();

    // Ended as a turn's end ends it (detached), not as a deletion's (cancelled).
    expect(await asking).toMatchObject({ ok: true, outcome: 'open', reason: 'detached' });
    const question = await h.request('GET', `/api/v1/clarification/${pendingId}`);
    // Answerable, detached: an answer resumes the agent with a new turn, as after any stop.
    expect(await question.json()).toMatchObject({
      status: 'pending',
      active: true,
      detached: true,
    });
  });

  it('leaves its due follow-up to be sent once the queue goes on', async () => {
    const { session, task } = await h.createTask('first');
    await h.settled();
    // An action done while the session runs its next turn: its follow-up waits in the queue.
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
    const done = await h.request('POST', `/api/v1/user-inputs/${action.id}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    await h.turns.userInputs.drain();
    expect(h.turns.userInputs.get(action.id)).toMatchObject({ status: 'due', queued: true });

    faults.failNext('delete', 'task_sessions');
    const refused = await h.request('DELETE', `/api/v1/sessions/${session.id}`);
    expect(refused.status).toBe(STORAGE_UNAVAILABLE);
    await h.settled();

    // Not swept: the cancelled turn's end leaves a due follow-up due, and the queue sends it.
    await h.turns.userInputs.drain();
    await eventually(() => h.turns.userInputs.get(action.id)?.status === 'settled');
    expect(h.turns.userInputs.get(action.id)).toMatchObject({ settled_reason: 'dispatched' });
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual([
      'first',
      'meanwhile',
      'Continue. I have completed: Connect the database',
    ]);
  });

  it('leaves each of a task’s sessions idle when the task’s delete is refused', async () => {
    const { session, task } = await h.createTask('first');
    await h.settled();
    const heard = h.events.events.length;

    faults.failNext('delete', 'task_sessions');
    const refused = await h.request('DELETE', `/api/v1/tasks/${task.id}`);
    expect(refused.status).toBe(STORAGE_UNAVAILABLE);
    await h.settled();

    expect(await transcript(session.id)).toEqual([
      ['user', 'message', 'first'],
      ['system', 'status', 'Cancelled'],
    ]);
    expect(statesHeard(session.id, heard)).toEqual(['idle']);
    expect(h.host.isStarted(session.id)).toBe(false);
  });

  it('ends the turn as a stop when its end is handled after the deletion ended', async () => {
    const { session } = await h.createTask('first');
    await h.settled();
    // The agent's words meet a full disk: their write waits on the fake clock to try again,
    // and the turn's end the deletion's stop reports waits behind it.
    faults.failNext('insert', 'task_session_messages');
    h.host.say(session.id, 'working on it');
    await eventually(() => faults.failed === 1);

    const heard = h.events.events.length;
    faults.failNext('delete', 'task_sessions');
    const refused = await h.request('DELETE', `/api/v1/sessions/${session.id}`);
    expect(refused.status).toBe(STORAGE_UNAVAILABLE);
    timers.advance(AGENT_EVENT_RETRY_BASE_MS);
    await h.settled();

    expect(faults.failed).toBe(2);
    expect(await transcript(session.id)).toEqual([
      ['user', 'message', 'first'],
      ['agent', 'message', 'working on it'],
      ['system', 'status', 'Cancelled'],
    ]);
    expect(statesHeard(session.id, heard)).toEqual(['idle']);
  });
});
