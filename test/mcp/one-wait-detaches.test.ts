/**
 * Two MCP clients of one client name share one external session, each asking
 * its own question. When the first's call ends, only its question reads
 * detached: the second's, still waited on, reads attached, and the person's
 * cancel reaches its waiting call.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QUESTION_CLOSED_MESSAGE } from '../../src/agents/mcp/results.js';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import {
  cancelAsPerson,
  mcpHarnessPerTest,
  readsDetached,
  structured,
  toolErrorText,
} from './mcp-harness.js';

/** An ask's own live wait, short so that its call comes back `open`. */
const LIVE_WAIT_MS = 300;
/** A cancel reaches the waiting call within this, not at its bound. */
const PROMPTLY_MS = 5_000;

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

describe.each(DRIVERS)('a wait that ends on %s', { timeout: 60_000 }, (driver) => {
  const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: LIVE_WAIT_MS } });

  async function ask(client: Client, questions: Record<string, unknown>): Promise<string> {
    const asked = structured(await m.call(client, 'ask_user_question', questions));
    expect(asked.status).toBe('open');
    return asked.pending_id as string;
  }

  it("detaches only its own question, not another client's still waited on", async () => {
    const first = await m.connect(m.tokens.member, 'my-claude');
    const second = await m.connect(m.tokens.member, 'my-claude');

    // The second asks, its ask's call ends, and it waits on its question again.
    const secondId = await ask(second, OTHER_QUESTION);
    const waiting = m.call(second, 'wait_for_answer', {
      pending_id: secondId,
      timeout_seconds: 60,
    });
    // Awaited below; should an assertion fail first, the closing client's rejection is expected.
    waiting.catch(() => undefined);
    await eventually(async () => !(await readsDetached(m, secondId)));

    // The first asks its own question in the same session; its call ends.
    const firstId = await ask(first, TWO_QUESTIONS);
    const [firstRow] = await m.h.rows(firstId);
    const [secondRow] = await m.h.rows(secondId);
    // One client name, one external session.
    expect(firstRow?.task_session_id).toBeTypeOf('string');
    expect(firstRow?.task_session_id).toBe(secondRow?.task_session_id);
    expect(await readsDetached(m, firstId)).toBe(true);

    // The second's wait still runs: its question reads attached, and the person can cancel it.
    expect(await readsDetached(m, secondId)).toBe(false);
    const rows = await m.h.rows(secondId);
    expect(rows.map((row) => row.metadata.agent_disconnected)).toEqual([false]);
    const cancelledAt = Date.now();
    const reply = await cancelAsPerson(m, secondId);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ cancelled: true });
    const result: CallToolResult = await waiting;
    expect(Date.now() - cancelledAt).toBeLessThan(PROMPTLY_MS);
    expect(toolErrorText(result)).toBe(QUESTION_CLOSED_MESSAGE);

    // Nobody waits on the first's question: nothing to cancel there.
    expect((await cancelAsPerson(m, firstId)).status).toBe(409);
  });
});
