/**
 * A person's message to a session whose agent asked while none of its turns
 * ran (between prompts): the session waits for input, but no turn runs for
 * the message to queue behind, and nothing would ever start it. It is sent
 * as the new turn instead, which supersedes the question, as a message to
 * an idle session with an older open question does. Both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)(
  'a message while a question asked between turns is open, on %s',
  (driver) => {
    let h: TurnsHarness;

    beforeEach(async () => {
      h = await turnsHarness(driver);
    });

    afterEach(async () => {
      await h.dispose();
    });

    it('is sent as the new turn, not queued for good', async () => {
      const sessionId = (await h.createTask('first')).session.id;
      await h.settled();
      h.host.endTurn(sessionId);
      await h.settled();
      const ask = h.service.ask(sessionId, TWO_QUESTIONS);
      await eventually(() => h.waiters.pendingIdsOf(sessionId).length > 0);
      expect((await getSession(h.store, sessionId))?.state).toBe('waiting_for_input');

      const sent = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'never mind, use the defaults',
        admission_key: 'between-turns-1',
      });
      expect(sent.status).toBe(200);
      await h.settled();
      expect(h.host.prompts.at(-1)?.text).toContain('never mind, use the defaults');
      expect(await ask).toMatchObject({ ok: true, outcome: 'open', reason: 'superseded' });
      expect((await getSession(h.store, sessionId))?.state).toBe('running');
      const queue = (await (
        await h.request('GET', `/api/v1/sessions/${sessionId}/queue`)
      ).json()) as {
        items: unknown[];
      };
      expect(queue.items).toEqual([]);
    });
  },
);
