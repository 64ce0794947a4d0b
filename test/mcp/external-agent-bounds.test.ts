/**
 * An external agent's bound on open questions holds per person, not per MCP
 * client name: the name (`clientInfo.name`) is the client's own to choose,
 * and each new one used to open a fresh session with a fresh allowance.
 * Now the open questions of all of a person's external sessions count
 * together against `OPEN_ASKS_PER_AGENT`, whichever token or name asked
 * them, and asks racing from several names get in exactly as many as there
 * are places. Nor did anything bound the sessions the new names opened: a
 * person's external agents may now keep at most `EXTERNAL_SESSIONS_PER_PERSON`
 * live; past that a new name is refused as `too_many_external_sessions` and
 * makes no task, until the person deletes one of those tasks. Real MCP
 * clients over HTTP, on both dialects.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import { listPendingBundles } from '../../src/clarification/index.js';
import { getSession } from '../../src/store/index.js';
import { EXTERNAL_SESSIONS_PER_PERSON, OPEN_ASKS_PER_AGENT } from '../../src/tunables.js';
import { CancelRequests } from '../../src/turns/cancellations.js';
import { UnrecordedRefusals } from '../../src/turns/unrecorded-refusals.js';
import { deleteTask, type TurnsDeps } from '../../src/turns/index.js';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

/** Each ask's live wait ends soon, leaving its question open. */
const LIVE_WAIT_MS = 20;

/** The `n`th distinct ask: its context differs, so it is never a repeat of another. */
const askNumber = (n: number) => ({ ...TWO_QUESTIONS, context: `Step ${n}` });

describe.each(DRIVERS)(
  "an external agent's bounds per person on %s",
  { timeout: 60_000 },
  (driver) => {
    let m: McpHarness;
    let token: string;

    beforeEach(async () => {
      m = await mcpHarness(driver, { budgets: { liveWaitMs: LIVE_WAIT_MS } });
      token = (
        await issueToken(m.h.store, {
          kind: 'external_agent',
          userId: m.h.principals.member.userId,
          name: 'Claude Code',
        })
      ).secret;
    });

    afterEach(async () => {
      await m.dispose();
    });

    /** Asks as `client` and expects the question left open. */
    async function askOpen(client: Client, n: number): Promise<string> {
      const asked = structured(await m.call(client, 'ask_user_question', askNumber(n)));
      expect(asked.status).toBe('open');
      return asked.pending_id as string;
    }

    async function tasksTitled(title: string) {
      return m.h.store.db.selectFrom('tasks').select('id').where('title', '=', title).execute();
    }

    /** The person's open questions, oldest first. */
    async function pendingIds(): Promise<string[]> {
      const listed = await listPendingBundles(m.h.store, m.h.principals.member, { limit: 100 });
      if (!listed.ok) throw new Error('cannot list');
      return listed.page.pending.map((bundle) => bundle.pending_id);
    }

    async function openCount(): Promise<number> {
      return (await pendingIds()).length;
    }

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

    it('counts the open questions of every client name of the person together', async () => {
      const first = await m.connect(token, 'claude-a');
      const half = OPEN_ASKS_PER_AGENT / 2;
      for (let n = 0; n < half; n += 1) await askOpen(first, n);
      const second = await m.connect(token, 'claude-b');
      for (let n = half; n < OPEN_ASKS_PER_AGENT; n += 1) await askOpen(second, n);

      // A third name, and each name already used, finds no room left.
      const renamed = await m.connect(token, 'claude-c');
      for (const client of [renamed, first, second]) {
        const refused = await m.call(client, 'ask_user_question', askNumber(100));
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toEqual({
          code: 'too_many_open_requests',
          error: expect.stringContaining(
            `${OPEN_ASKS_PER_AGENT} questions of your external agents are open (every MCP client name counts)`,
          ) as unknown,
        });
        // It is told how to reach what it already asked, rather than asking again.
        expect(refused.structuredContent?.error).toEqual(
          expect.stringMatching(/list_pending_questions .*; wait_for_answer /),
        );
      }
      // The refused new name made no task, and nothing was asked.
      expect(await tasksTitled('claude-c')).toEqual([]);
      expect(await openCount()).toBe(OPEN_ASKS_PER_AGENT);

      // An answer frees a place for any of the person's clients.
      const [oldest] = await pendingIds();
      await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, oldest ?? '', {
        rejected: true,
      });
      await askOpen(renamed, 101);
      expect(await tasksTitled('claude-c')).toHaveLength(1);
      expect(await openCount()).toBe(OPEN_ASKS_PER_AGENT);
    });

    it("lets exactly as many of the person's clients in as there are places left", async () => {
      // Each racer asks under a name of its own, in a session its first, answered, ask opened:
      // racing, they hold different sessions' locks, and only the person's lock orders them.
      const racing = 8;
      const racers: Client[] = [];
      for (let index = 0; index < racing; index += 1) {
        const racer = await m.connect(token, `racer-${index}`);
        const opened = await askOpen(racer, 50 + index);
        await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, opened, {
          rejected: true,
        });
        racers.push(racer);
      }
      const first = await m.connect(token, 'claude-a');
      const [row] = await m.h.rows(await askOpen(first, 0));
      const sessionId = row?.task_session_id ?? '';
      const placesLeft = 3;
      for (let n = 1; n < OPEN_ASKS_PER_AGENT - placesLeft; n += 1) {
        const asked = await m.h.service.ask(sessionId, askNumber(n), { timeoutMs: 1 });
        expect(asked.ok).toBe(true);
      }

      const results = await Promise.all(
        racers.map((client, index) => m.call(client, 'ask_user_question', askNumber(100 + index))),
      );
      const codes = results.map((result) =>
        result.isError ? (result.structuredContent as { code: string }).code : 'ok',
      );
      expect(codes.filter((code) => code === 'ok')).toHaveLength(placesLeft);
      expect(codes.filter((code) => code === 'too_many_open_requests')).toHaveLength(
        racing - placesLeft,
      );
      expect(await openCount()).toBe(OPEN_ASKS_PER_AGENT);
    });

    it('refuses a new client name past the live sessions a person may have; a delete frees one', async () => {
      const taskIds: string[] = [];
      for (let n = 0; n < EXTERNAL_SESSIONS_PER_PERSON; n += 1) {
        const client = await m.connect(token, `client-${n}`);
        const pendingId = await askOpen(client, n);
        // Answered: a session without open questions still counts while it lives.
        await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, pendingId, {
          rejected: true,
        });
        const [row] = await m.h.rows(pendingId);
        taskIds.push((await getSession(m.h.store, row?.task_session_id ?? ''))?.task_id ?? '');
      }

      const extra = await m.connect(token, 'one-too-many');
      const refused = await m.call(extra, 'ask_user_question', askNumber(100));
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toEqual({
        code: 'too_many_external_sessions',
        error: expect.stringContaining(
          `your external agents have ${EXTERNAL_SESSIONS_PER_PERSON} sessions, one per MCP client name, ` +
            `and may have at most ${EXTERNAL_SESSIONS_PER_PERSON}`,
        ) as unknown,
      });
      expect(await tasksTitled('one-too-many')).toEqual([]);
      expect(await openCount()).toBe(0);

      // A name that already has its session still asks there.
      const known = await m.connect(token, 'client-0');
      await askOpen(known, 200);
      expect(await tasksTitled('client-0')).toHaveLength(1);

      // Deleting one of those tasks makes room for the new name.
      expect(await deleteTask(turnsDeps(), m.h.principals.member, taskIds[1] ?? '')).toEqual({
        ok: true,
      });
      await askOpen(extra, 101);
      expect(await tasksTitled('one-too-many')).toHaveLength(1);
    });
  },
);
