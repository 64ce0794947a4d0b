/**
 * An external agent's `wait_for_answer` whose task is deleted while it waits,
 * through a real MCP client: the wait ends within a few seconds with
 * `not_found`, as a new call would, instead of running to its timeout and
 * telling the agent to call again. The delete is `turns/`' own `deleteTask`.
 */
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listPendingBundles } from '../../src/clarification/index.js';
import { getSession } from '../../src/store/index.js';
import { CancelRequests } from '../../src/turns/cancellations.js';
import { UnrecordedRefusals } from '../../src/turns/unrecorded-refusals.js';
import { deleteTask, type TurnsDeps } from '../../src/turns/index.js';
import { DRIVERS, inOrder } from '../support/databases.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { mcpHarnessPerTest, structured } from './mcp-harness.js';

/** The old behaviour ran the wait to its 60 s timeout. */
const ENDS_WITHIN_MS = 10_000;

// Within one database the tests run in order: they share its harness (`m`).
const it = inOrder;

// The two databases at once, each with its own harness; most of a test waits on MCP calls.
describe.concurrent.each(DRIVERS)(
  'wait_for_answer when its task is deleted, on %s',
  { timeout: 30_000 },
  (driver) => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: 300 } });

    /** What `deleteTask` needs of `turns/` for an external session: no agent, no requests. */
    function turnsDeps(): TurnsDeps {
      return {
        store: m.h.store,
        clarification: m.h.service,
        sessions: m.h.sessions,
        cancellations: new CancelRequests(),
        unrecordedRefusals: new UnrecordedRefusals(),
        userInputs: { sessionDeleted: () => 0 },
        host: { isStarted: () => false },
      } as unknown as TurnsDeps;
    }

    async function openQuestion(client: Client) {
      const asked = structured(await m.call(client, 'ask_user_question', TWO_QUESTIONS));
      expect(asked.status).toBe('open');
      const pendingId = asked.pending_id as string;
      const listed = await listPendingBundles(m.h.store, m.colleague, {});
      const sessionId = listed.ok
        ? listed.page.pending.find((bundle) => bundle.pending_id === pendingId)?.session_id
        : undefined;
      const taskId = (await getSession(m.h.store, sessionId ?? ''))?.task_id;
      if (taskId === undefined) throw new Error('no external task');
      return { pendingId, taskId };
    }

    it('ends with not_found soon after the delete', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const { pendingId, taskId } = await openQuestion(client);
      const waiting = m.call(
        client,
        'wait_for_answer',
        { pending_id: pendingId, timeout_seconds: 60 },
        { onprogress: () => undefined, timeout: 90_000 },
      );
      // The wait has read the bundle once and sleeps on it.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const deletedAt = Date.now();
      expect(await deleteTask(turnsDeps(), m.h.principals.member, taskId)).toEqual({ ok: true });
      const result = await waiting;
      expect(Date.now() - deletedAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'not_found' });

      // A new call says the same.
      const again = await m.call(client, 'wait_for_answer', { pending_id: pendingId });
      expect(again.structuredContent).toMatchObject({ code: 'not_found' });
    });

    it('ends with not_active when the session only ended, as a new call would', async () => {
      const client = await m.connect(m.tokens.member, 'my-claude');
      const { pendingId } = await openQuestion(client);
      const waiting = m.call(
        client,
        'wait_for_answer',
        { pending_id: pendingId, timeout_seconds: 60 },
        { onprogress: () => undefined, timeout: 90_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));

      const rows = await m.h.rows(pendingId);
      const endedAt = Date.now();
      await m.h.service.expireSession(rows[0]?.task_session_id ?? '', 'exited');
      const result = await waiting;
      expect(Date.now() - endedAt).toBeLessThan(ENDS_WITHIN_MS);
      expect(result.structuredContent).toMatchObject({ code: 'not_active' });
      const again = await m.call(client, 'wait_for_answer', { pending_id: pendingId });
      expect(again.structuredContent).toMatchObject({ code: 'not_active' });
    });
  },
);
