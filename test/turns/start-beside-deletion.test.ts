/**
 * An agent start that read its session before the session's delete committed
 * and reaches the host after it (a message admitted just before the delete,
 * its start slow): no agent is left running for a session that is gone. The
 * delete's own stop after its commit sees no agent yet, so the start must see
 * the session gone. The test holds the start between its session read and
 * the host, so the race runs in that order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('an agent start beside its session’s delete on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Holds the next start section until released; `reached` once it waits. */
  function holdNextStartSection() {
    const { starts } = h.turns;
    const serially = starts.serially.bind(starts);
    let reach: () => void = () => undefined;
    let release: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    starts.serially = async <T>(sessionId: string, work: () => Promise<T>): Promise<T> => {
      starts.serially = serially;
      reach();
      await gate;
      return serially(sessionId, work);
    };
    return { reached, release };
  }

  it('leaves no agent running for the deleted session', async () => {
    const { session } = await h.createTask();
    const held = holdNextStartSection();
    const sent = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'first',
      admission_key: 'first',
    });
    expect(sent.status).toBeLessThan(300);
    // The start read the session and waits to reach the host.
    await held.reached;

    const deleted = await h.request('DELETE', `/api/v1/sessions/${session.id}`);
    expect(deleted.status).toBeLessThan(300);
    held.release();
    await h.settled();

    expect(h.host.isStarted(session.id)).toBe(false);
    expect(h.host.prompts).toEqual([]);
  });
});
