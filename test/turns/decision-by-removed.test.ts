/**
 * A person's decision on a consent, action or form request is kept in the
 * write that records it; an admin may remove them from the request's
 * workspace while it is on its way. Only someone with standing decides: the
 * write refuses it, nothing is recorded, they hear what anyone outside the
 * workspace hears (404), and the request waits on for someone who belongs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { armPause } from '../../src/support/failpoints.js';
import { removeWorkspaceMember } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { decisionRows, turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

const PAUSE_BOUND_MS = 10_000;

describe.each(DRIVERS)('a decision by a person removed while it is recorded, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('is refused as not found and recorded nowhere; the request still waits', async () => {
    const { session, task } = await h.createTask('first');
    await h.settled();
    const created = h.turns.userInputs.request({
      kind: 'action',
      sessionId: session.id,
      taskId: task.id,
      title: 'Connect the database',
      instructions: 'Open the console and add the key.',
    });
    if (!created.ok) throw new Error('request refused');
    const pause = armPause('user_input.before_decision_recorded', PAUSE_BOUND_MS);
    try {
      const responding = h.request('POST', `/api/v1/user-inputs/${created.id}/respond`, {
        decision: 'done',
      });
      await pause.reached;
      expect(await removeWorkspaceMember(h.store, h.seeded.task.workspace_id, h.memberId)).toBe(
        true,
      );
      pause.release();
      expect((await responding).status).toBe(404);
    } finally {
      pause.release();
    }
    expect(await decisionRows(h, session.id)).toEqual([]);
    expect(h.turns.userInputs.get(created.id)).toMatchObject({ status: 'awaiting' });
  });
});
