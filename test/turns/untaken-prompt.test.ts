/**
 * A turn whose prompt the agent never took, ended by the host stopping the
 * agent (`AgentHost.cancel`'s grace, or the grace after the prompt's caller
 * gave up waiting for its acceptance): the message is refused with the reason,
 * the session is idle without a failure, and the messages queued behind it run
 * with a new agent, with nothing else sent. A message sent during that grace
 * (the session reads idle, but the agent still has the prompt) is queued, not
 * refused, and runs once: after the agent's stop, or after the turn's end when
 * the agent takes the prompt late. On both dialects; the host's stop is played
 * by the test (`TestHost.stopToEndTurn`), the acceptance deadline driven by a
 * fake clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession, listQueue } from '../../src/store/index.js';
import { startNextQueued } from '../../src/turns/admission.js';
import { PROMPT_ACCEPT_TIMEOUT_MS } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { ClockTimers, fakeClock } from '../support/fakes.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a prompt the agent never took, ended by its stop, on %s', (driver) => {
  let h: TurnsHarness;
  let timers: ClockTimers;

  beforeEach(async () => {
    timers = new ClockTimers(fakeClock());
    h = await turnsHarness(driver, { timers });
  });

  afterEach(async () => {
    await h.dispose();
  });

  const send = async (sessionId: string, text: string, key: string) => {
    const response = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text,
      admission_key: key,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const state = async (sessionId: string) => (await getSession(h.store, sessionId))?.state;

  /** A session whose agent runs and now sends it a prompt it does not take, with one queued behind. */
  async function wedged() {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();
    h.host.holdPrompts();
    const untaken = send(sessionId, 'never taken', 'untaken-1');
    await eventually(async () => (await state(sessionId)) === 'running');
    expect(await send(sessionId, 'queued behind it', 'queued-1')).toMatchObject({
      status: 202,
      body: { outcome: 'queued' },
    });
    return { sessionId, untaken };
  }

  async function expectQueueRanWithNewAgent(sessionId: string) {
    await h.settled();
    expect(h.host.launches).toHaveLength(2);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual([
      'first',
      'never taken',
      'queued behind it',
    ]);
    expect(await state(sessionId)).toBe('running');
    expect(await listQueue(h.store, sessionId)).toEqual([]);
    expect((await getSession(h.store, sessionId))?.failure_code ?? null).toBeNull();
  }

  it('after a cancel whose grace passed before the agent took the prompt', async () => {
    const { sessionId, untaken } = await wedged();
    expect((await h.request('POST', `/api/v1/sessions/${sessionId}/cancel`)).status).toBe(202);
    // The agent ignores the cancel; once its grace passed the host stops it.
    h.host.takePrompts();
    h.host.stopToEndTurn(sessionId);
    expect((await untaken).status).toBe(503);
    await expectQueueRanWithNewAgent(sessionId);
    // That cancel was spent on the untaken turn: a later turn the agent cancels itself names nobody.
    h.host.endTurn(sessionId, 'cancelled');
    await h.settled();
    const transcript = await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    const { messages } = (await transcript.json()) as {
      messages: { content: string; metadata: Record<string, unknown> }[];
    };
    const notes = messages
      .filter((message) => message.metadata.turn_outcome === 'cancelled')
      .map((message) => message.content);
    expect(notes.at(-1)).toBe('Cancelled');
  });

  it('after its caller gave up waiting and the grace that follows passed', async () => {
    const { sessionId, untaken } = await wedged();
    timers.advance(PROMPT_ACCEPT_TIMEOUT_MS);
    expect((await untaken).status).toBe(503);
    // Refused and idle, but the agent still has the prompt: the queue waits for it to go.
    expect(await state(sessionId)).toBe('idle');
    await h.settled();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'never taken']);
    h.host.takePrompts();
    h.host.stopToEndTurn(sessionId);
    await eventually(async () => (await state(sessionId)) === 'running');
    await expectQueueRanWithNewAgent(sessionId);
  });

  /** A session whose agent has a prompt it did not take, whose caller gave up waiting for it. */
  async function givenUp() {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();
    h.host.holdPrompts();
    const untaken = send(sessionId, 'never taken', 'untaken-1');
    await eventually(async () => (await state(sessionId)) === 'running');
    timers.advance(PROMPT_ACCEPT_TIMEOUT_MS);
    expect((await untaken).status).toBe(503);
    expect(await state(sessionId)).toBe('idle');
    h.host.takePrompts();
    return sessionId;
  }

  /** A message sent in the grace that followed: queued, and left there by a queue driver woken meanwhile. */
  async function sendInTheGrace(sessionId: string) {
    expect(await send(sessionId, 'sent in the grace', 'grace-1')).toMatchObject({
      status: 202,
      body: { outcome: 'queued' },
    });
    // As the wake bus's poll on PostgreSQL would: the agent still has a turn, so the queue waits.
    await startNextQueued(h.turns, sessionId);
    await h.settled();
    expect((await listQueue(h.store, sessionId)).map((item) => item.content)).toEqual([
      'sent in the grace',
    ]);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'never taken']);
  }

  async function expectRanOnce(sessionId: string, launches: number) {
    await eventually(async () => (await state(sessionId)) === 'running');
    await h.settled();
    expect(h.host.launches).toHaveLength(launches);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual([
      'first',
      'never taken',
      'sent in the grace',
    ]);
    expect(await listQueue(h.store, sessionId)).toEqual([]);
  }

  it('queues a message sent in the grace after its caller gave up; the stop runs it', async () => {
    const sessionId = await givenUp();
    await sendInTheGrace(sessionId);
    h.host.stopToEndTurn(sessionId);
    await expectRanOnce(sessionId, 2);
  });

  it('queues a message sent in that grace; the late-taken turn’s end runs it', async () => {
    const sessionId = await givenUp();
    await sendInTheGrace(sessionId);
    // The agent takes the given-up prompt after all, and ends that turn.
    h.host.endTurn(sessionId);
    await expectRanOnce(sessionId, 1);
  });
});
