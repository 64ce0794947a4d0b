/**
 * A session ended for good through a replica that does not run its agent
 * (issue 16), its `stop` wake to the holder lost: the holder's poll (the
 * wake subscriber's `resync`) stops the agent of every session it holds that
 * takes no more turns. Its lease stays the holder's, so no renew fences the
 * agent, and its idle stop never fires on a session that is not idle. On
 * both dialects with the agent played by the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireLease,
  getSession,
  timestampAtMs,
  type RepoContext,
} from '../../src/store/index.js';
import { endSessionsActedFor } from '../../src/turns/acted-for.js';
import { holderWakes } from '../../src/turns/holder-wakes.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { TestHost } from '../support/test-host.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

const HOLDER = 'replica-a';

describe.each(DRIVERS)('a stop wake lost on its way to the holder, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('stops, at the holder’s next poll, the agent of a session whose person was deleted', async () => {
    const { session } = await h.createTask('go');
    await h.settled();
    h.host.endTurn(session.id);
    await h.settled();
    expect((await getSession(h.store, session.id))?.state).toBe('idle');
    const nowMs = h.store.clock.nowMs();
    expect(
      await acquireLease(h.store, session.id, {
        replicaId: HOLDER,
        now: timestampAtMs(nowMs),
        expiresAt: timestampAtMs(nowMs + 60_000),
      }),
    ).toBe(true);

    // The person's deletion through B, which runs no agent for it: B fails the session and
    // tells the holder, whose wake is lost.
    const told: string[] = [];
    const throughB = {
      ...h.turns,
      host: new TestHost(),
      leases: leasePort({
        acquire: () => Promise.resolve(false),
        tellHolder: (_ctx: RepoContext, _sessionId: string, kind: string) => {
          told.push(kind);
          return Promise.resolve();
        },
      }),
    };
    await endSessionsActedFor(throughB, [session.id], 'owner_deleted');
    expect(told).toEqual(['stop']);
    expect(await getSession(h.store, session.id)).toMatchObject({
      state: 'failed',
      failure_code: 'owner_deleted',
    });
    expect(h.host.isStarted(session.id)).toBe(true);

    await holderWakes(h.turns, HOLDER).resync();
    await h.settled();
    expect(h.host.isStarted(session.id)).toBe(false);
    expect(await getSession(h.store, session.id)).toMatchObject({
      state: 'failed',
      failure_code: 'owner_deleted',
    });
  });
});
