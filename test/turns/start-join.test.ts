/**
 * A message never joins an agent start that has already moved its session
 * back to idle (issue 13's `starting`): such a start no longer runs the
 * session's queue, so a message that joined it would leave the session
 * `starting` with no start under way. The window (after the start's session
 * write, before its queue's drain is over) is held open by a lease check the
 * test gates, and the agent is made to exit inside it; on both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession, listQueue } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { leasePort } from '../support/lease-port.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a start that has left `starting`, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  const send = (sessionId: string, text: string, key: string) =>
    h.request('POST', `/api/v1/sessions/${sessionId}/messages`, { text, admission_key: key });

  it('is not joined by a message admitted after it: that message begins a start of its own', async () => {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.host.stop(sessionId);
    await h.pump.idle();
    expect((await getSession(h.store, sessionId))?.state).toBe('idle');

    // The queue's drain checks the lease before it acts on the agent: the test holds it there.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let confirms = 0;
    h.turns.leases = leasePort({
      confirm: async () => {
        confirms += 1;
        await held;
        return true;
      },
    });

    // A message starts the agent; the start moves the session back to idle and stops, before
    // running the queue, at the lease check.
    const second = send(sessionId, 'second', 'second-1');
    await eventually(() => confirms === 1);
    expect((await getSession(h.store, sessionId))?.state).toBe('idle');
    // Its agent goes away meanwhile (no failure): the start's drain can no longer run it.
    h.host.exit(sessionId, { deliberate: true });
    await h.pump.idle();

    // The next message finds the session idle with no agent, makes it `starting` and needs a
    // start that will run the queue: not the one stopped at the lease check, which has left it.
    const third = send(sessionId, 'third', 'third-1');
    await eventually(async () => (await listQueue(h.store, sessionId)).length === 2);
    release();
    await Promise.all([second, third]);
    await h.settled();

    expect((await getSession(h.store, sessionId))?.state).toBe('running');
    expect(h.host.launches).toHaveLength(3);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    expect((await listQueue(h.store, sessionId)).map((item) => item.content)).toEqual(['third']);
  });
});
