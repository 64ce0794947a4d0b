/**
 * `wait_for_answer` on a question that a newer turn superseded while the
 * call waited, through a real MCP client: the wait ends within a few
 * seconds with `not_active`, as a new call (or a poll of the question)
 * would, instead of running to its timeout and telling the agent to call
 * again. The newer turn is a real one: the person answers another detached
 * question of the same turn, and its successor turn reaches the agent.
 */
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DRIVERS, inOrder } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { QUESTION_SUPERSEDED_MESSAGE } from '../../src/agents/mcp/results.js';
import { mcpHarnessPerTest, structured, toolErrorText } from './mcp-harness.js';

/** An ask's own live wait, short so that both questions detach. */
const LIVE_WAIT_MS = 300;
/** The old behaviour ran the wait to its timeout (15 s here). */
const ENDS_WITHIN_MS = 8_000;

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

// Within one database the tests run in order: they share its harness (`m`).
const it = inOrder;

// The two databases at once, each with its own harness; most of a test waits on MCP calls.
describe.concurrent.each(DRIVERS)(
  'wait_for_answer on a question a newer turn superseded, on %s',
  { timeout: 60_000 },
  (driver) => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: LIVE_WAIT_MS } });

    /** Two questions of the agent's current turn, both detached once their asks came back. */
    async function twoDetachedQuestions(agent: Client) {
      const first = structured(await m.call(agent, 'ask_user_question', TWO_QUESTIONS));
      const second = structured(await m.call(agent, 'ask_user_question', OTHER_QUESTION));
      expect([first.status, second.status]).toEqual(['open', 'open']);
      return { older: first.pending_id as string, answered: second.pending_id as string };
    }

    /** The person answers `pendingId`: its successor turn becomes the session's current one. */
    async function answerStartingNewTurn(pendingId: string, body: unknown) {
      const response = await m.respond(pendingId, body, m.tokens.member);
      expect(response.status).toBe(200);
      await eventually(() => m.h.runtime.prompts.length === 1);
    }

    const waitOn = (client: Client, pendingId: string) =>
      m.call(
        client,
        'wait_for_answer',
        { pending_id: pendingId, timeout_seconds: 15 },
        { onprogress: () => undefined, timeout: 90_000 },
      );

    it('another caller’s wait ends with not_active soon after, as a new call would', async () => {
      const agent = await m.connect(m.tokens.agent);
      const { older, answered } = await twoDetachedQuestions(agent);
      const person = await m.connect(m.tokens.member, 'my-claude');
      const waiting = waitOn(person, older);
      // The wait has read the bundle once and sleeps on it.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const supersededAt = Date.now();
      await answerStartingNewTurn(answered, {
        answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }],
      });
      const result = await waiting;
      expect(Date.now() - supersededAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'not_active' });

      const again = await m.call(person, 'wait_for_answer', { pending_id: older });
      expect(again.structuredContent).toMatchObject({ code: 'not_active' });
      const polled = await m.respond(older, ANSWERS, m.tokens.member);
      expect(polled.status).toBe(409);
    });

    it('the asking agent’s own wait ends with not_active too, not open', async () => {
      const agent = await m.connect(m.tokens.agent);
      const { older, answered } = await twoDetachedQuestions(agent);
      const waiting = waitOn(agent, older);
      await new Promise((resolve) => setTimeout(resolve, 200));

      const supersededAt = Date.now();
      await answerStartingNewTurn(answered, {
        answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }],
      });
      const result = await waiting;
      expect(Date.now() - supersededAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(result.structuredContent).toMatchObject({ code: 'not_active' });
    });
  },
);

describe.concurrent.each(DRIVERS)(
  'ask_user_question whose question a newer turn superseded, on %s',
  { timeout: 60_000 },
  (driver) => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: 15_000 } });

    it('ends its blocking call with not_active, saying the conversation moved on', async () => {
      const agent = await m.connect(m.tokens.agent);
      const asking = m.call(agent, 'ask_user_question', TWO_QUESTIONS, {
        onprogress: () => undefined,
        timeout: 90_000,
      });
      await eventually(() => m.h.waiters.pendingIdsOf(m.h.seeded.session.id).length === 1);
      // Another question of the same turn, left detached, which the person answers.
      const other = await m.h.service.ask(m.h.seeded.session.id, OTHER_QUESTION, { timeoutMs: 1 });
      if (!other.ok) throw new Error('ask failed');

      const supersededAt = Date.now();
      const response = await m.respond(
        other.pendingId,
        { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }] },
        m.tokens.member,
      );
      expect(response.status).toBe(200);
      const result = await asking;
      expect(Date.now() - supersededAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(result.structuredContent).toMatchObject({ code: 'not_active' });
      expect(toolErrorText(result)).toBe(QUESTION_SUPERSEDED_MESSAGE);
    });
  },
);
