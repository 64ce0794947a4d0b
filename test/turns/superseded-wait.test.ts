/**
 * A wait on a detached question (`awaitDecision`, what `wait_for_answer`
 * runs) when the person sends a new message instead of answering: the
 * message's turn supersedes the question, and the wait ends within a few
 * seconds with `not_active`, as a new call would, instead of running to its
 * timeout and reading "still open".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

/** Long enough that running to it fails the test below. */
const WAIT_TIMEOUT_MS = 15_000;
const ENDS_WITHIN_MS = 8_000;

describe.each(DRIVERS)('a wait on a question a new message superseded, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it(
    'ends with not_active soon after the message starts its turn',
    { timeout: 30_000 },
    async () => {
      const { session } = await h.createTask('first');
      const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
      if (!asked.ok) throw new Error('ask failed');
      h.host.endTurn(session.id);
      await h.pump.idle();
      const waiting = h.service.awaitDecision(h.principals.member, asked.pendingId, {
        timeoutMs: WAIT_TIMEOUT_MS,
      });
      // The wait has read the bundle once and sleeps on it.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const sentAt = Date.now();
      const sent = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
        text: 'Never mind, use the defaults',
        admission_key: 'instead',
      });
      expect(((await sent.json()) as { outcome: string }).outcome).toBe('sent');
      expect(await waiting).toMatchObject({ ok: false, code: 'not_active' });
      expect(Date.now() - sentAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(
        await h.service.awaitDecision(h.principals.member, asked.pendingId, { timeoutMs: 1 }),
      ).toMatchObject({ ok: false, code: 'not_active' });
    },
  );
});
