/**
 * A message sent through a replica that does not run the session's agent
 * (issue 16), on both dialects with the agent played by the test: its start
 * is refused there for now, the message waits in the queue, and the holder
 * is woken with the commit that makes the session idle again. Woken any
 * earlier, the holder's queue driver would find the session still starting
 * and leave the message to its next poll.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession, listQueue, type RepoContext } from '../../src/store/index.js';
import { admitMessage } from '../../src/turns/admission.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a message through a replica without the agent, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('is queued, and wakes the holder once the session reads idle again', async () => {
    const { session } = await h.createTask();
    const woken: [kind: string, state: string | undefined][] = [];
    const elsewhere = leasePort({
      acquire: () => Promise.resolve(false),
      // Read inside the transaction the wake is sent with: what the holder will find.
      tellHolder: async (ctx: RepoContext, sessionId, kind) => {
        woken.push([kind, (await getSession(ctx, sessionId))?.state]);
      },
    });
    const throughB = { ...h.turns, leases: elsewhere };

    const admitted = await admitMessage(throughB, h.principals.member, session.id, {
      text: 'run this where the agent is',
      admissionKey: 'elsewhere',
    });
    expect(admitted).toMatchObject({ ok: true, outcome: 'queued' });
    await h.turns.starts.idle();

    expect(woken).toEqual([['queue', 'idle']]);
    expect((await getSession(h.store, session.id))?.state).toBe('idle');
    expect((await listQueue(h.store, session.id)).map((item) => item.content)).toEqual([
      'run this where the agent is',
    ]);
    expect(h.host.launches).toEqual([]);
  });
});
