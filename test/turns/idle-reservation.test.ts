/**
 * The idle stop and a detached answer's successor turn (issue 13): an agent
 * whose session holds a reserved successor turn is not idle, since that
 * turn's prompt may be on its way to it; once the reservation is gone the
 * next deadline stops the agent. A verdict whose write fails stops nothing
 * and leaves nobody waiting on it. The deadline is fired by hand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deleteUnattemptedReservation, reserveSuccessorTurn } from '../../src/store/index.js';
import type { Timers } from '../../src/support/timers.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

/** Timers whose callbacks run only when the test says so. */
function manualTimers(): Timers & { fireAll(): void } {
  let due = new Set<() => void>();
  return {
    setTimeout(callback) {
      due.add(callback);
      return {
        cancel: () => {
          due.delete(callback);
        },
      };
    },
    fireAll() {
      const now = due;
      due = new Set();
      for (const callback of now) callback();
    },
  };
}

describe.each(DRIVERS)('the idle stop and a reserved successor turn on %s', (driver) => {
  let h: TurnsHarness;
  let timers: ReturnType<typeof manualTimers>;

  beforeEach(async () => {
    timers = manualTimers();
    h = await turnsHarness(driver, { timers, agentIdleMs: 1_000 });
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('spares an agent while its session holds a reservation, and stops it once released', async () => {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();

    const reservation = await h.sessions.write(sessionId, (write) =>
      reserveSuccessorTurn(write.tx, {
        sessionId,
        taskId: created.task.id,
        recovery: { pendingId: 'bundle-1', clarificationTurnId: 'turn-0', messageIds: [] },
      }),
    );
    timers.fireAll();
    // The verdict is a session write: once another write passes, it was taken.
    await h.sessions.write(sessionId, () => Promise.resolve());
    await h.pump.idle();
    expect(h.host.isStarted(sessionId)).toBe(true);

    await h.sessions.write(sessionId, (write) =>
      deleteUnattemptedReservation(write.tx, reservation.id),
    );
    timers.fireAll();
    await eventually(() => !h.host.isStarted(sessionId));
  });

  it('a verdict whose write fails leaves the agent running, its deadline armed and no one waiting', async () => {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();

    // The verdict runs whole, then its write rolls back, as a commit that fails does.
    const write = h.sessions.write.bind(h.sessions);
    let refused = false;
    vi.spyOn(h.sessions, 'write').mockImplementationOnce((id, change, options) =>
      write(
        id,
        async (unit) => {
          await change(unit);
          refused = true;
          throw new Error('commit refused');
        },
        options,
      ),
    );
    timers.fireAll();
    await eventually(() => refused && !h.turns.idleStops.isStopping(sessionId));
    await h.turns.idleStops.settled(sessionId);
    expect(h.host.isStarted(sessionId)).toBe(true);

    // A message admitted now reaches the running agent rather than waiting for a stop.
    const admitted = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toMatchObject({ outcome: 'sent' });
    await h.settled();
    expect(h.host.prompts.map((prompt) => prompt.text)).toContain('second');
    h.host.endTurn(sessionId);
    await h.pump.idle();

    timers.fireAll();
    await eventually(() => !h.host.isStarted(sessionId));
  });
});
