/**
 * Shutdown while an answer's successor turn ends the waits on the questions
 * it superseded: that check runs after the dispatch, not awaited by it, so
 * `close` must wait for it (or it would read a store closing under it, and
 * log an error) and it must read nothing once `close` began.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { armPause } from '../../src/support/failpoints.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';

const PAUSE_BOUND_MS = 10_000;
/** How long `close` is given to show it does not wait for the paused check. */
const CLOSE_GRACE_MS = 300;

const OTHER_QUESTION = {
  context: 'Releasing',
  questions: [
    {
      prompt: 'Which branch do we release from?',
      options: [
        { label: 'main', description: 'The default branch' },
        { label: 'release', description: 'The release branch' },
      ],
    },
  ],
};

describe.each(DRIVERS)('closing while superseded waits are being ended, on %s', (driver) => {
  let h: Harness;
  const lines: string[] = [];

  beforeEach(async () => {
    lines.length = 0;
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    h = await clarificationHarness(driver, { logger });
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('close waits for the check, which reads nothing after close began', async () => {
    const sessionId = h.seeded.session.id;
    const older = await h.service.ask(sessionId, TWO_QUESTIONS, { timeoutMs: 1 });
    const answered = await h.service.ask(sessionId, OTHER_QUESTION, { timeoutMs: 1 });
    if (!older.ok || !answered.ok) throw new Error('asks failed');
    // Someone waits on the older question: the successor turn's check concerns it.
    const waiting = h.service.awaitDecision(h.principals.member, older.pendingId, {
      timeoutMs: PAUSE_BOUND_MS,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const paused = armPause('superseded_waits.before_read', PAUSE_BOUND_MS);
    try {
      const response = await h.respond(answered.pendingId, {
        answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }],
      });
      expect(response.status).toBe(200);
      await eventually(() => h.runtime.prompts.length === 1);
      await paused.reached;

      // A graceful stop drains first: the waits end, then `close` waits for work in flight.
      h.service.drain();
      let closed = false;
      const closing = h.service.close().then(() => {
        closed = true;
      });
      await new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS));
      expect(closed).toBe(false);
      paused.release();
      await closing;
    } finally {
      paused.release();
    }
    // Ended by the drain, it read the question superseded, as a new call would.
    expect(await waiting).toMatchObject({ ok: false, code: 'not_active' });
    expect(lines.filter((line) => line.includes('superseded'))).toEqual([]);
  });
});
