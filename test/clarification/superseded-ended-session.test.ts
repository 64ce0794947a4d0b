/**
 * A session that ended (its agent failed, its person was deleted) writes its
 * state first and expires its questions in a later write. A look for
 * superseded waits between the two (another replica's wake of the first
 * write) must not take the ended session's questions for superseded ones:
 * the asker would be told the conversation moved on to a newer turn. The
 * session's own ending closes them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSessionState } from '../../src/store/index.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';

describe.each(DRIVERS)('a look for superseded waits in a session that ended, on %s', (driver) => {
  let h: Harness;

  beforeEach(async () => {
    h = await clarificationHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('leaves the asker’s wait to the session’s end, which closes it', async () => {
    const sessionId = h.seeded.session.id;
    const asking = h.service.ask(sessionId, TWO_QUESTIONS, { timeoutMs: 30_000 });
    await eventually(() => h.waiters.pendingIdsOf(sessionId).length === 1);

    await setSessionState(h.store, sessionId, 'failed');
    await h.service.turnStarted(sessionId);
    expect(h.waiters.pendingIdsOf(sessionId)).toHaveLength(1);

    await h.service.expireSession(sessionId, 'exited');
    expect(await asking).toMatchObject({ ok: true, outcome: 'open', reason: 'cancelled' });
  });
});
