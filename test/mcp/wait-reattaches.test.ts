/**
 * An external agent's `wait_for_answer` on its own question after its ask's
 * call ended (the question detached), through a real MCP client on both
 * dialects: while it waits the question reads attached again (REST and the
 * session's events), so the person may cancel it, and the cancel or an
 * answer reaches the waiting call at once, handed over as to an ask's wait;
 * when its bound passes the question is detached again. A repeated ask does
 * the same on one server. An answer given after the wait read the question
 * but before its live wait began (a failpoint holds it there) reaches it at
 * once too, not at its bound.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QUESTION_CLOSED_MESSAGE } from '../../src/agents/mcp/results.js';
import { armPause } from '../../src/support/failpoints.js';
import { DRIVERS } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import {
  cancelAsPerson,
  mcpHarnessPerTest,
  readsDetached,
  structured,
  toolErrorText,
} from './mcp-harness.js';

/** The ask's own live wait, short so that its call comes back `open` and the question detaches. */
const LIVE_WAIT_MS = 300;
/** A cancel or an answer reaches the waiting call within this, not at its bound. */
const PROMPTLY_MS = 5_000;
/** The wait's own bound in the race below: far beyond `PROMPTLY_MS`. */
const RACED_WAIT_SECONDS = 30;
/** The failpoint lets the wait go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 40_000;

describe.each(DRIVERS)(
  'wait_for_answer waits as the asker on %s',
  { timeout: 60_000 },
  (driver) => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: LIVE_WAIT_MS } });

    /** Asks through `client` and lets the ask's call end: the question is open and detached. */
    async function detachedQuestion(client: Client): Promise<string> {
      const asked = structured(await m.call(client, 'ask_user_question', TWO_QUESTIONS));
      expect(asked.status).toBe('open');
      const pendingId = asked.pending_id as string;
      expect(await readsDetached(m, pendingId)).toBe(true);
      return pendingId;
    }

    /** The `agent_disconnected` flags the session's events published since `from`, per update. */
    function publishedFlags(pendingId: string, from: number): unknown[] {
      return m.h.events.events.slice(from).flatMap((event) => {
        if (event.type !== 'message.updated') return [];
        const { metadata } = event.message;
        return metadata.pending_id === pendingId ? [metadata.agent_disconnected] : [];
      });
    }

    function waitFor(client: Client, pendingId: string, timeoutSeconds: number) {
      return m.call(client, 'wait_for_answer', {
        pending_id: pendingId,
        timeout_seconds: timeoutSeconds,
      });
    }

    it('reads attached while it waits, and detached again once its bound passes', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const pendingId = await detachedQuestion(client);
      const before = m.h.events.events.length;

      const started = Date.now();
      const waiting = waitFor(client, pendingId, 2);
      await eventually(async () => !(await readsDetached(m, pendingId)));
      const rows = await m.h.rows(pendingId);
      expect(rows.map((row) => row.metadata.agent_disconnected)).toEqual([false, false]);
      // Both rows, in the event the web app reads them from.
      expect(publishedFlags(pendingId, before)).toEqual([false, false]);

      expect(structured(await waiting)).toMatchObject({ status: 'open', pending_id: pendingId });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(await readsDetached(m, pendingId)).toBe(true);
      expect(publishedFlags(pendingId, before)).toEqual([false, false, true, true]);
      // Nothing waits any more: the person has nothing to cancel.
      expect((await cancelAsPerson(m, pendingId)).status).toBe(409);
    });

    it("hands the person's cancel to the waiting call at once", async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const pendingId = await detachedQuestion(client);
      // Detached, nobody waits: nothing to cancel.
      expect((await cancelAsPerson(m, pendingId)).status).toBe(409);

      const waiting = waitFor(client, pendingId, 60);
      await eventually(async () => !(await readsDetached(m, pendingId)));
      const cancelledAt = Date.now();
      const reply = await cancelAsPerson(m, pendingId);
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ cancelled: true });

      const result: CallToolResult = await waiting;
      expect(Date.now() - cancelledAt).toBeLessThan(PROMPTLY_MS);
      expect(toolErrorText(result)).toBe(QUESTION_CLOSED_MESSAGE);
      expect(result.structuredContent).toMatchObject({ code: 'not_active' });
      const rows = await m.h.rows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
      // A later wait says the same at once.
      const again = await waitFor(client, pendingId, 60);
      expect(toolErrorText(again)).toBe(QUESTION_CLOSED_MESSAGE);
    });

    it('hands an answer given while it waits over once, as to an ask', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const pendingId = await detachedQuestion(client);
      const waiting = waitFor(client, pendingId, 60);
      await eventually(async () => !(await readsDetached(m, pendingId)));

      const colleague = await m.connect(m.tokens.colleague);
      const answeredAt = Date.now();
      const answered = structured(
        await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS }),
      );
      expect(answered).toMatchObject({ claimed: true, status: 'answered' });
      const result = structured(await waiting);
      expect(Date.now() - answeredAt).toBeLessThan(PROMPTLY_MS);
      expect(result).toMatchObject({
        status: 'answered',
        pending_id: pendingId,
        answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }], custom_text: '' } },
      });
      // One delivery, to the live wait: not recorded for a later collection.
      const deliveries = m.h.observer.phases.filter((phase) => phase.phase === 'delivery');
      expect(deliveries.map((phase) => phase.outcome)).toEqual(['live']);
      const rows = await m.h.rows(pendingId);
      expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([
        undefined,
        undefined,
      ]);
    });

    it('hands over an answer given between its read of the question and its live wait', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const colleague = await m.connect(m.tokens.colleague);
      const pendingId = await detachedQuestion(client);
      const paused = armPause('wait_for_answer.before_live_wait', PAUSE_BOUND_MS);
      try {
        const waiting = waitFor(client, pendingId, RACED_WAIT_SECONDS);
        await paused.reached;
        // No waiter yet to hand it to: it is recorded for the wait to read.
        const answered = structured(
          await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS }),
        );
        expect(answered).toMatchObject({ claimed: true, status: 'answered' });
        const releasedAt = Date.now();
        paused.release();
        const result = structured(await waiting);
        expect(Date.now() - releasedAt).toBeLessThan(PROMPTLY_MS);
        expect(result).toMatchObject({
          status: 'answered',
          pending_id: pendingId,
          answers: {
            q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }], custom_text: '' },
          },
        });
      } finally {
        paused.release();
      }
    });

    it('attaches a repeated ask again while it waits', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const pendingId = await detachedQuestion(client);
      const before = m.h.events.events.length;

      const again = m.call(client, 'ask_user_question', TWO_QUESTIONS);
      await eventually(async () => !(await readsDetached(m, pendingId)));
      expect(publishedFlags(pendingId, before)).toEqual([false, false]);
      expect(structured(await again)).toMatchObject({ status: 'open', pending_id: pendingId });
      expect(await readsDetached(m, pendingId)).toBe(true);
    });
  },
);

describe.each(DRIVERS)(
  'a wait that begins as another on the same question ends, on %s',
  { timeout: 60_000 },
  (driver) => {
    const m = mcpHarnessPerTest(driver, { progressIntervalMs: 40 });

    it('keeps the question attached: the new wait holds it', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const colleague = await m.connect(m.tokens.colleague);
      // The ask waits live, kept alive by progress, until its client gives up on it.
      const askCall = new AbortController();
      const asking = m
        .call(client, 'ask_user_question', TWO_QUESTIONS, {
          signal: askCall.signal,
          onprogress: () => undefined,
          resetTimeoutOnProgress: true,
        })
        .catch(() => undefined);
      let pendingId: string | undefined;
      await eventually(async () => {
        const listed = structured(await m.call(client, 'list_pending_questions', {}));
        pendingId = (listed.pending as { pending_id: string }[])[0]?.pending_id;
        return pendingId !== undefined && m.h.waiters.has(pendingId);
      });
      if (!pendingId) throw new Error('nothing asked');

      // The client collects it with wait_for_answer, whose read attaches the question again…
      const paused = armPause('wait_for_answer.before_live_wait', PAUSE_BOUND_MS);
      try {
        const waiting = m.call(client, 'wait_for_answer', {
          pending_id: pendingId,
          timeout_seconds: RACED_WAIT_SECONDS,
        });
        // Awaited below; a failure before then must not surface as an unhandled rejection.
        waiting.catch(() => undefined);
        await paused.reached;
        // …and just then gives up on its ask: that wait ends while the new one is about to begin.
        askCall.abort();
        await asking;
        const id = pendingId;
        await eventually(() => !m.h.waiters.has(id));
        // Time for the ended wait's writes, had it any to make.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        paused.release();
        await eventually(() => m.h.waiters.has(id));

        // Someone waits on it, so the person must not read that nobody does.
        expect(await readsDetached(m, pendingId)).toBe(false);
        const answered = structured(
          await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS }),
        );
        expect(answered).toMatchObject({ claimed: true, status: 'answered' });
        expect(structured(await waiting)).toMatchObject({
          status: 'answered',
          pending_id: pendingId,
        });
      } finally {
        paused.release();
      }
    });
  },
);
