/**
 * A token revoked while its call waits, through a real MCP client: an
 * external agent's `wait_for_answer` or held `ask_user_question` ends within
 * a few seconds with `unauthorized`, and no answer reaches it, even one given
 * before the watch noticed. The answer is not lost: it stays recorded for the
 * client's external session, where a live token of the same person collects
 * it. Revocation here is what `DELETE /api/v1/tokens/:id` does (the row goes,
 * nobody is told), so the same holds when another replica revoked it.
 */
import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueToken } from '../../src/auth/index.js';
// The bare revocation, as another replica's: nobody here is told (`AccountService` would tell).
import { revokePersonalToken } from '../../src/auth/personal-tokens.js';
import type { UserPrincipal } from '../../src/auth/accounts.js';
import { listPendingBundles } from '../../src/clarification/index.js';
import { DRIVERS, inOrder } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

const LIVE_WAIT_MS = 30_000;
/** The old behaviour ran the wait to its 60 s timeout; the watch reads tokens every second. */
const ENDS_WITHIN_MS = 10_000;
const CLIENT = 'my-claude';

// Within one database the tests run in order: they share its harness (`m`) and `member`.
const it = inOrder;

// The two databases at once, each with its own harness; most of a test waits on MCP calls.
describe.concurrent.each(DRIVERS)(
  'a token revoked while its MCP call waits, on %s',
  { timeout: 30_000 },
  (driver) => {
    let m: McpHarness;
    let member: UserPrincipal;

    beforeEach(async () => {
      m = await mcpHarness(driver, {
        budgets: { liveWaitMs: LIVE_WAIT_MS },
        route: { callWithoutProgressMs: 300 },
      });
      member = m.h.principals.member as UserPrincipal;
    });

    afterEach(async () => {
      await m.dispose();
    });

    /** An agent token the member mints for their own agent, and a client connected with it. */
    async function externalAgent(): Promise<{ client: Client; tokenId: string }> {
      const issued = await issueToken(m.h.store, {
        kind: 'external_agent',
        userId: member.userId,
        name: 'my agent',
      });
      return { client: await m.connect(issued.secret, CLIENT), tokenId: issued.record.id };
    }

    async function revoke(tokenId: string): Promise<void> {
      expect(await revokePersonalToken(m.h.store, member, tokenId)).toEqual({ ok: true });
    }

    /** The bundle the colleague sees waiting, once it is there. */
    async function pendingBundle(): Promise<string> {
      let pendingId: string | undefined;
      await eventually(async () => {
        const listed = await listPendingBundles(m.h.store, m.colleague, {});
        pendingId = listed.ok ? listed.page.pending.at(-1)?.pending_id : undefined;
        return pendingId !== undefined;
      });
      if (pendingId === undefined) throw new Error('nothing pending');
      return pendingId;
    }

    /** An ask the client gave up on: the question stays open for `wait_for_answer`. */
    async function openQuestion(client: Client): Promise<string> {
      const cancel = new AbortController();
      const asking = m
        .call(client, 'ask_user_question', TWO_QUESTIONS, {
          onprogress: () => undefined,
          signal: cancel.signal,
        })
        .catch(() => undefined);
      const pendingId = await pendingBundle();
      cancel.abort();
      await asking;
      await eventually(async () =>
        (await m.h.rows(pendingId)).every((row) => row.metadata.agent_disconnected === true),
      );
      return pendingId;
    }

    async function answer(pendingId: string): Promise<void> {
      const response = await m.respond(pendingId, ANSWERS, m.tokens.colleague);
      expect(response.status).toBe(200);
    }

    /** The call's result and how long after `since` it came. */
    async function timed(call: Promise<CallToolResult>, since: number) {
      const result = await call;
      return { result, ms: Date.now() - since };
    }

    /** A live token of the same person collects the answer from the same client's session. */
    async function collectedByAnotherToken(pendingId: string): Promise<Record<string, unknown>> {
      const again = await externalAgent();
      return structured(
        await m.call(again.client, 'wait_for_answer', {
          pending_id: pendingId,
          timeout_seconds: 5,
        }),
      );
    }

    function expectRevoked(result: CallToolResult): void {
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'unauthorized' });
      expect(JSON.stringify(result)).not.toContain('Generated');
    }

    it('ends a waiting wait_for_answer promptly with unauthorized', async () => {
      const { client, tokenId } = await externalAgent();
      const pendingId = await openQuestion(client);
      const waiting = m.call(
        client,
        'wait_for_answer',
        { pending_id: pendingId, timeout_seconds: 60 },
        { onprogress: () => undefined, timeout: 90_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));

      const revokedAt = Date.now();
      await revoke(tokenId);
      const { result, ms } = await timed(waiting, revokedAt);
      expectRevoked(result);
      expect(ms).toBeLessThan(ENDS_WITHIN_MS);

      // The question is still the person's to answer, and its answer is kept.
      await answer(pendingId);
      expect(await collectedByAnotherToken(pendingId)).toMatchObject({ status: 'answered' });
    });

    it('never hands wait_for_answer an answer given after the revocation', async () => {
      const { client, tokenId } = await externalAgent();
      const pendingId = await openQuestion(client);
      const waiting = m.call(
        client,
        'wait_for_answer',
        { pending_id: pendingId, timeout_seconds: 60 },
        { onprogress: () => undefined, timeout: 90_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));

      // Answered at once, before any periodic read of the token could have noticed.
      await revoke(tokenId);
      await answer(pendingId);
      expectRevoked(await waiting);
      expect(await collectedByAnotherToken(pendingId)).toMatchObject({ status: 'answered' });
    });

    it('ends a held ask promptly; the answer given then stays for the session', async () => {
      const { client, tokenId } = await externalAgent();
      // With a progress token the ask blocks until the person answers.
      const asking = m.call(client, 'ask_user_question', TWO_QUESTIONS, {
        onprogress: () => undefined,
        timeout: 90_000,
      });
      const pendingId = await pendingBundle();

      const revokedAt = Date.now();
      await revoke(tokenId);
      const { result, ms } = await timed(asking, revokedAt);
      expectRevoked(result);
      expect(ms).toBeLessThan(ENDS_WITHIN_MS);

      await answer(pendingId);
      expect(await collectedByAnotherToken(pendingId)).toMatchObject({ status: 'answered' });
    });

    it('does not hand a live ask an answer given right after the revocation', async () => {
      const { client, tokenId } = await externalAgent();
      const asking = m.call(client, 'ask_user_question', TWO_QUESTIONS, {
        onprogress: () => undefined,
        timeout: 90_000,
      });
      const pendingId = await pendingBundle();

      // The live waiter is still there when the answer comes: its hand-off reads the token first.
      await revoke(tokenId);
      await answer(pendingId);
      expectRevoked(await asking);

      // Delivered as to a waiter that left: recorded for the external session, not lost.
      const rows = await m.h.rows(pendingId);
      expect(rows.every((row) => row.metadata.status === 'answered')).toBe(true);
      expect(rows.some((row) => row.metadata.delivery_pending === true)).toBe(false);
      expect(await collectedByAnotherToken(pendingId)).toMatchObject({ status: 'answered' });
    });

    it('ends the wait an ask holds past its call once its token is revoked', async () => {
      const { client, tokenId } = await externalAgent();
      // No progress token: the call returns `waiting` and the ask's live wait goes on.
      const asked = structured(await m.call(client, 'ask_user_question', TWO_QUESTIONS));
      expect(asked.status).toBe('waiting');
      const pendingId = asked.pending_id as string;
      expect(m.h.waiters.has(pendingId)).toBe(true);

      await revoke(tokenId);
      await eventually(() => !m.h.waiters.has(pendingId), ENDS_WITHIN_MS);
      await eventually(
        async () => (await m.h.rows(pendingId)).every((row) => row.metadata.agent_disconnected),
        ENDS_WITHIN_MS,
      );
      await answer(pendingId);
      expect(await collectedByAnotherToken(pendingId)).toMatchObject({ status: 'answered' });
    });
  },
);
