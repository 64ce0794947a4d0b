/**
 * A live wait of a session this replica lost while it did not run (issue 16,
 * fencing): the replica that took the session over already made its bundle
 * detached and answerable there, so the wait here ends without writing
 * anything. The agent's call fails (`not_active`) rather than hearing "open",
 * and the rows stay as they were; a detach (a wait that merely ended) writes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  clarificationHarness,
  eventually,
  TWO_QUESTIONS,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';

describe.each(DRIVERS)('a fenced live wait on %s', (driver) => {
  let h: Harness;

  afterEach(async () => {
    await h.dispose();
  });

  async function waitingAsk() {
    const asked = h.service.ask(h.seeded.session.id, TWO_QUESTIONS);
    await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length > 0);
    const [pendingId = ''] = h.waiters.pendingIdsOf(h.seeded.session.id);
    return { asked, pendingId };
  }

  it('ends the wait, fails the agent call and writes nothing', async () => {
    h = await clarificationHarness(driver);
    const { asked, pendingId } = await waitingAsk();
    const before = await h.rows(pendingId);
    const published = h.events.events.length;

    h.service.fenceSession(h.seeded.session.id);
    expect(await asked).toMatchObject({ ok: false, code: 'not_active' });
    expect(h.waiters.has(pendingId)).toBe(false);
    expect(await h.rows(pendingId)).toEqual(before);
    expect(h.events.events).toHaveLength(published);
  });

  it('unlike a detach, which writes the bundle detached', async () => {
    h = await clarificationHarness(driver);
    const { asked, pendingId } = await waitingAsk();
    const before = await h.rows(pendingId);

    await h.service.detachSession(h.seeded.session.id);
    expect(await asked).toMatchObject({ ok: true, outcome: 'open', reason: 'detached' });
    expect(await h.rows(pendingId)).not.toEqual(before);
  });
});
