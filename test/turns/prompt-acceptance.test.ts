/**
 * A prompt the agent does not take is given up after
 * `PROMPT_ACCEPT_TIMEOUT_MS` on the turns' own timers, so a fake clock drives
 * that deadline as it drives every other: the message is refused with the
 * reason in its transcript and the session is free again, on both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession } from '../../src/store/index.js';
import { PROMPT_ACCEPT_TIMEOUT_MS } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { ClockTimers, fakeClock } from '../support/fakes.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

/** Far below the real deadline: only the fake clock can have ended the wait in this time. */
const GIVEN_UP_WITHIN_MS = 3_000;

describe.each(DRIVERS)('a prompt the agent does not take, on %s', (driver) => {
  let h: TurnsHarness;
  let timers: ClockTimers;

  beforeEach(async () => {
    timers = new ClockTimers(fakeClock());
    h = await turnsHarness(driver, { timers });
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('is given up when the injected timers reach the acceptance deadline', async () => {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();

    // From now on the agent never takes a prompt; only the caller's giving up ends the wait.
    const aborted: string[] = [];
    h.host.prompt = (request) =>
      new Promise<void>((_, reject) => {
        request.signal.addEventListener('abort', () => {
          aborted.push(request.text);
          reject(new Error('gave up waiting for the agent to accept the prompt'));
        });
      });
    let status: number | undefined;
    const sending = h
      .request('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'are you there?',
        admission_key: 'untaken-1',
      })
      .then((response) => {
        status = response.status;
      });
    await eventually(async () => (await getSession(h.store, sessionId))?.state === 'running');

    timers.advance(PROMPT_ACCEPT_TIMEOUT_MS - 1);
    expect(aborted).toEqual([]);
    timers.advance(1);
    await eventually(() => status !== undefined, GIVEN_UP_WITHIN_MS);
    await sending;
    expect(aborted).toEqual(['are you there?']);
    expect(status).toBe(503);
    expect((await getSession(h.store, sessionId))?.state).toBe('idle');
  });
});
