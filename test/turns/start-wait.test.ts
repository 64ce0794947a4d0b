/**
 * A message that starts its session's agent waits for that start only
 * `ADMISSION_START_WAIT_MS` on the turns' own timers, so a fake clock ends
 * the wait as it drives every other deadline: real time passing does not,
 * the clock reaching the wait answers `queued`, and the message is sent once
 * the start ends. On both dialects, with agents played by the test.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession, listQueue } from '../../src/store/index.js';
import { ADMISSION_START_WAIT_MS } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { ClockTimers, fakeClock } from '../support/fakes.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('the wait of a message that starts its agent, on %s', (driver) => {
  let h: TurnsHarness;
  let timers: ClockTimers;

  beforeEach(async () => {
    timers = new ClockTimers(fakeClock());
    h = await turnsHarness(driver, { timers });
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('ends when the injected timers reach it, not when real time does', async () => {
    const { session } = await h.createTask();
    const release = h.host.holdStarts();
    let answer: { status: number; body: unknown } | undefined;
    const sending = h
      .request('POST', `/api/v1/sessions/${session.id}/messages`, {
        text: 'wake up',
        admission_key: 'start-1',
      })
      .then(async (response) => {
        answer = { status: response.status, body: await response.json() };
      });
    await eventually(() => h.host.launches.length === 1);

    // Longer than the wait in real time: only the fake clock may end it.
    await sleep(ADMISSION_START_WAIT_MS + 500);
    expect(answer).toBeUndefined();
    timers.advance(ADMISSION_START_WAIT_MS - 1);
    await sleep(50);
    expect(answer).toBeUndefined();
    timers.advance(1);
    await sending;
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'queued' } });
    expect((await getSession(h.store, session.id))?.state).toBe('starting');

    release();
    await h.settled();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['wake up']);
    expect(await listQueue(h.store, session.id)).toEqual([]);
    expect((await getSession(h.store, session.id))?.state).toBe('running');
  });
});
