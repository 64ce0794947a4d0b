/**
 * An external agent (someone's own MCP client with a user token, or with the
 * agent token its person minted for it) on both dialects: its questions land
 * in an `external` session of a task named after the client, colleagues list
 * and answer them over MCP, the asking client gets the answer live, or later
 * through `wait_for_answer` once its wait ended. With an agent token it sees
 * only its own questions and can never answer one.
 */
import { describe, expect, it } from 'vitest';
import { listPendingBundles } from '../../src/clarification/index.js';
import { issueToken } from '../../src/auth/index.js';
import { getSession, getTask, removeWorkspaceMember } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  ANSWERS_AS_RECEIVED,
  TWO_QUESTIONS,
  eventually,
} from '../support/clarification-harness.js';
import { mcpHarnessPerTest, structured, toolErrorText, type McpHarness } from './mcp-harness.js';

/** Outlasts every step of a live test on a busy machine, so the person's answer finds the call live. */
const LIVE_FOR_THE_TEST_MS = 60_000;
/**
 * For the tests of what happens once the live wait ended: short, so that the ask's call comes
 * back `open` (as in the other MCP suites); a `wait_for_answer` waits its own `timeout_seconds`.
 * Nothing happens during it (the bundle is written before it begins), so every ask here costs
 * it in full: 300 ms took some 8 s of the file.
 */
const LIVE_WAIT_MS = 50;

/** An agent token the member minted for an agent of theirs named `name`. */
function memberAgentToken(m: McpHarness, name: string) {
  return issueToken(m.h.store, {
    kind: 'external_agent',
    userId: m.h.principals.member.userId,
    name,
  });
}

/** The newest active bundle the colleague can see. */
async function newestVisible(m: McpHarness) {
  let pendingId: string | undefined;
  let sessionId: string | undefined;
  await eventually(async () => {
    const result = await listPendingBundles(m.h.store, m.colleague, {});
    const last = result.ok ? result.page.pending.at(-1) : undefined;
    pendingId = last?.pending_id;
    sessionId = last?.session_id;
    return last !== undefined;
  });
  if (!pendingId || !sessionId) throw new Error('nothing pending');
  return { pendingId, sessionId };
}

describe.each(DRIVERS)('MCP for an external agent on %s', (driver) => {
  describe('while its ask is live', () => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: LIVE_FOR_THE_TEST_MS } });

    it('asks in an external session named after the client; a colleague answers live', async () => {
      const external = await m.connect(m.tokens.member, 'my-claude');
      const call = m.call(external, 'ask_user_question', TWO_QUESTIONS);
      const { pendingId, sessionId } = await newestVisible(m);

      const session = await getSession(m.h.store, sessionId);
      expect(session).toMatchObject({ agent_profile: 'external', state: 'waiting_for_input' });
      const task = await getTask(m.h.store, session?.task_id ?? '');
      expect(task).toMatchObject({
        title: 'my-claude',
        workspace_id: m.h.seeded.task.workspace_id,
        created_by: m.h.principals.member.userId,
      });

      const colleague = await m.connect(m.tokens.colleague);
      const listed = structured(await m.call(colleague, 'list_pending_questions', {}));
      expect(listed.pending).toEqual([
        expect.objectContaining({ pending_id: pendingId, session_id: sessionId, detached: false }),
      ]);
      const answered = structured(
        await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS }),
      );
      expect(answered).toMatchObject({ claimed: true, status: 'answered' });

      expect(structured(await call)).toMatchObject({
        status: 'answered',
        pending_id: pendingId,
        answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }], custom_text: '' } },
      });

      // The same client keeps its session; another client name gets its own task.
      const again = m.call(external, 'ask_user_question', { ...TWO_QUESTIONS, context: 'again' });
      const second = await newestVisible(m);
      expect(second.sessionId).toBe(sessionId);
      await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, second.pendingId, {
        rejected: true,
      });
      expect(structured(await again)).toMatchObject({ status: 'skipped', reason: '' });

      const otherClient = await m.connect(m.tokens.member, 'other-tool');
      const third = m.call(otherClient, 'ask_user_question', TWO_QUESTIONS);
      const elsewhere = await newestVisible(m);
      expect(elsewhere.sessionId).not.toBe(sessionId);
      await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, elsewhere.pendingId, {
        rejected: true,
      });
      await third;
    });

    it('with an agent token, asks and waits in its external session and never decides', async () => {
      const minted = await memberAgentToken(m, 'Claude Code');
      const agent = await m.connect(minted.secret, 'claude-code');
      const asking = m.call(agent, 'ask_user_question', TWO_QUESTIONS);
      const { pendingId, sessionId } = await newestVisible(m);
      const session = await getSession(m.h.store, sessionId);
      expect(session).toMatchObject({ agent_profile: 'external' });
      expect(await getTask(m.h.store, session?.task_id ?? '')).toMatchObject({
        title: 'claude-code',
        created_by: m.h.principals.member.userId,
      });

      // Its own question is all it sees, and it cannot answer it: only a person decides.
      const listed = structured(await m.call(agent, 'list_pending_questions', {}));
      expect((listed.pending as { pending_id: string }[]).map((item) => item.pending_id)).toEqual([
        pendingId,
      ]);
      const refused = await m.call(agent, 'answer_question', { pending_id: pendingId, ...ANSWERS });
      expect(toolErrorText(refused)).toContain('Tool answer_question not found');
      expect((await m.h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
        'pending',
        'pending',
      ]);
      // Nor can it ask for an action, which only an agent Clarion started may.
      const tools = await agent.listTools();
      expect(tools.tools.map((tool) => tool.name)).not.toContain('request_user_action');

      const colleague = await m.connect(m.tokens.colleague);
      expect(
        structured(
          await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS }),
        ),
      ).toMatchObject({ claimed: true });
      expect(structured(await asking)).toMatchObject({ status: 'answered', pending_id: pendingId });
      const rows = await m.h.rows(pendingId);
      expect(rows[0]?.metadata.responded_by).toMatchObject({
        user_id: m.colleague.userId,
        surface: 'mcp',
      });
    });

    it('makes the client no task for a read or a refused call; its first ask does', async () => {
      const minted = await memberAgentToken(m, 'Reader');
      const agent = await m.connect(minted.secret, 'quiet-client');
      const tasksNamed = async () =>
        m.h.store.db.selectFrom('tasks').select('id').where('title', '=', 'quiet-client').execute();

      const unknown = await m.call(agent, 'wait_for_answer', {
        pending_id: 'no-such-pending-id',
        timeout_seconds: 1,
      });
      expect(toolErrorText(unknown)).toBe('clarification request not found');
      expect(structured(await m.call(agent, 'list_pending_questions', {}))).toEqual({
        pending: [],
        next_cursor: null,
      });
      const answer = await m.call(agent, 'answer_question', { pending_id: 'x', ...ANSWERS });
      expect(toolErrorText(answer)).toContain('Tool answer_question not found');
      expect(await tasksNamed()).toEqual([]);

      // The first ask opens the task; later reads find it and open no other.
      const asking = m.call(agent, 'ask_user_question', TWO_QUESTIONS);
      const { pendingId } = await newestVisible(m);
      const listed = structured(await m.call(agent, 'list_pending_questions', {}));
      expect((listed.pending as { pending_id: string }[]).map((item) => item.pending_id)).toEqual([
        pendingId,
      ]);
      // A new MCP session of the same client finds it too, without asking first.
      const again = await m.connect(minted.secret, 'quiet-client');
      const found = structured(await m.call(again, 'list_pending_questions', {}));
      expect((found.pending as { pending_id: string }[]).map((item) => item.pending_id)).toEqual([
        pendingId,
      ]);
      expect(await tasksNamed()).toHaveLength(1);
      await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, pendingId, {
        rejected: true,
      });
      expect(structured(await asking)).toMatchObject({ status: 'skipped' });
    });

    it('refuses an invalid first ask before making the client a task', async () => {
      const external = await m.connect(m.tokens.member, 'fresh-client');
      const [first, second] = TWO_QUESTIONS.questions;
      const duplicated = {
        questions: [
          { ...first, id: 'same' },
          { ...second, id: 'same' },
        ],
      };
      const refused = await m.call(external, 'ask_user_question', duplicated);
      expect(toolErrorText(refused)).toContain('duplicate question id');
      const tasks = await m.h.store.db
        .selectFrom('tasks')
        .select('id')
        .where('title', '=', 'fresh-client')
        .execute();
      expect(tasks).toEqual([]);
    });

    it('tells a user without a workspace that there is nowhere to ask', async () => {
      const outsider = await m.connect(m.tokens.outsider, 'lonely');
      const result = await m.call(outsider, 'ask_user_question', TWO_QUESTIONS);
      expect(toolErrorText(result)).toBe('your account belongs to no workspace to ask in');
    });

    it('asks no more in a workspace its person was removed from, though the client found it', async () => {
      const external = await m.connect(m.tokens.member, 'removed-claude');
      const first = m.call(external, 'ask_user_question', TWO_QUESTIONS);
      const { pendingId, sessionId } = await newestVisible(m);
      await m.h.service.respond({ principal: m.colleague, surface: 'rest' }, pendingId, {
        rejected: true,
      });
      await first;

      // The member leaves the workspace: its people must not go on hearing, and deciding for,
      // the agent of someone who is no longer one of them.
      const workspaceId = m.h.seeded.task.workspace_id;
      expect(
        await removeWorkspaceMember(m.h.store, workspaceId, m.h.principals.member.userId),
      ).toBe(true);
      const again = await m.call(external, 'ask_user_question', TWO_QUESTIONS);
      expect(toolErrorText(again)).toBe('your account belongs to no workspace to ask in');
      const stillThere = await listPendingBundles(m.h.store, m.colleague, {});
      expect(
        stillThere.ok ? stillThere.page.pending.filter((p) => p.session_id === sessionId) : [],
      ).toEqual([]);
    });
    const removedCases = [
      ['user token', false],
      ['agent token', false],
      ['user token', true],
    ] as const;
    for (const [kind, progress] of removedCases) {
      const how = progress ? 'sending progress' : 'held past its call';
      it(`with a ${kind} (${how}), gets no answer given after its person was removed from the workspace`, async () => {
        const secret =
          kind === 'user token'
            ? m.tokens.member
            : (await memberAgentToken(m, 'Claude Code')).secret;
        const external = await m.connect(secret, 'removed-live');
        const asking = m.call(
          external,
          'ask_user_question',
          TWO_QUESTIONS,
          progress ? { onprogress: () => undefined } : undefined,
        );
        const { pendingId } = await newestVisible(m);
        // Removed while its agent waits: that person may no longer see what is said there.
        expect(
          await removeWorkspaceMember(
            m.h.store,
            m.h.seeded.task.workspace_id,
            m.h.principals.member.userId,
          ),
        ).toBe(true);
        const answered = await m.h.service.respond(
          { principal: m.colleague, surface: 'rest' },
          pendingId,
          ANSWERS,
        );
        expect(answered.ok).toBe(true);
        const result = await asking;
        expect(JSON.stringify(result)).not.toContain('q1_opt2');
        const waited = await m.call(external, 'wait_for_answer', { pending_id: pendingId });
        // An agent token finds no session to wait in: its person belongs to no workspace now.
        expect(toolErrorText(waited)).toBe(
          kind === 'user token'
            ? 'clarification request not found'
            : 'your account belongs to no workspace to ask in',
        );
      });
    }

    it('is not told to wait for an answer it may no longer have once its person was removed', async () => {
      const external = await m.connect(m.tokens.member, 'removed-told');
      const asking = m.call(external, 'ask_user_question', TWO_QUESTIONS, {
        onprogress: () => undefined,
      });
      const { pendingId } = await newestVisible(m);
      const { workspace_id: workspaceId } = m.h.seeded.task;
      const member = m.h.principals.member.userId;
      expect(await removeWorkspaceMember(m.h.store, workspaceId, member)).toBe(true);
      const answered = await m.h.service.respond(
        { principal: m.colleague, surface: 'rest' },
        pendingId,
        ANSWERS,
      );
      expect(answered.ok).toBe(true);
      // Answered, and not for this caller: not open, and nothing to wait for, as wait_for_answer says.
      const result = await asking;
      expect(result.structuredContent).toEqual({
        error: 'clarification request not found',
        code: 'not_found',
      });
      const waited = await m.call(external, 'wait_for_answer', { pending_id: pendingId });
      expect(waited.structuredContent).toEqual(result.structuredContent);
    });
  });

  describe('once its live wait ended', () => {
    const m = mcpHarnessPerTest(driver, { budgets: { liveWaitMs: LIVE_WAIT_MS } });

    it('after the wait ended, wait_for_answer returns the answer given later', async () => {
      const external = await m.connect(m.tokens.member, 'my-claude');
      const asked = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(asked).toEqual({
        status: 'open',
        pending_id: expect.any(String) as unknown,
        message:
          'The question stays open. Call wait_for_answer with this pending_id to get the answer.',
      });
      const pendingId = asked.pending_id as string;
      const rows = await m.h.rows(pendingId);
      expect(rows.every((row) => row.metadata.agent_disconnected === true)).toBe(true);

      // Another session's agent can neither answer nor list it.
      const stranger = await m.connect(m.tokens.otherAgent);
      const refused = await m.call(stranger, 'answer_question', {
        pending_id: pendingId,
        ...ANSWERS,
      });
      expect(toolErrorText(refused)).toContain('Tool answer_question not found');
      expect(structured(await m.call(stranger, 'list_pending_questions', {})).pending).toEqual([]);
      const outsider = await m.connect(m.tokens.outsider);
      expect(
        toolErrorText(await m.call(outsider, 'wait_for_answer', { pending_id: pendingId })),
      ).toBe('clarification request not found');

      const colleague = await m.connect(m.tokens.colleague);
      const args = { pending_id: pendingId, ...ANSWERS };
      expect(structured(await m.call(colleague, 'answer_question', args))).toMatchObject({
        claimed: true,
      });
      const replay = structured(await m.call(colleague, 'answer_question', args));
      expect(replay).toMatchObject({ claimed: false, status: 'answered' });

      expect(
        structured(await m.call(external, 'wait_for_answer', { pending_id: pendingId })),
      ).toEqual({
        status: 'answered',
        pending_id: pendingId,
        answers: ANSWERS_AS_RECEIVED,
      });
    });

    it('hands a retry of a cut call the answer given meanwhile, once, instead of asking again', async () => {
      // Claude Code over HTTP: its call came back (or was cut) before the person answered, and
      // its model never saw the pending ID; it calls again with the same questions.
      const external = await m.connect(m.tokens.member, 'my-claude');
      const cut = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(cut).toMatchObject({ status: 'open' });
      const pendingId = cut.pending_id as string;
      const colleague = await m.connect(m.tokens.colleague);
      await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS });

      const retried = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(retried).toEqual({
        status: 'answered',
        pending_id: pendingId,
        answers: ANSWERS_AS_RECEIVED,
      });
      // Collected: the same questions once more are a new question for the person.
      const again = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(again).toMatchObject({ status: 'open' });
      expect(again.pending_id).not.toBe(pendingId);
      const listed = await listPendingBundles(m.h.store, m.colleague, {});
      expect(listed.ok && listed.page.pending.map((bundle) => bundle.pending_id)).toEqual([
        again.pending_id,
      ]);
    });

    it('hands a retry the person’s rejection too', async () => {
      const external = await m.connect(m.tokens.member, 'my-claude');
      const cut = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      const pendingId = cut.pending_id as string;
      const colleague = await m.connect(m.tokens.colleague);
      const rejection = { pending_id: pendingId, rejected: true, reject_reason: 'Not now' };
      await m.call(colleague, 'answer_question', rejection);
      expect(structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS))).toEqual({
        status: 'skipped',
        pending_id: pendingId,
        reason: 'Not now',
      });
    });

    it('asks anew once the answer was collected, or once the agent asked something else', async () => {
      const external = await m.connect(m.tokens.member, 'my-claude');
      const colleague = await m.connect(m.tokens.colleague);
      const askAndAnswer = async () => {
        const asked = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
        expect(asked).toMatchObject({ status: 'open' });
        const pendingId = asked.pending_id as string;
        await m.call(colleague, 'answer_question', { pending_id: pendingId, ...ANSWERS });
        return pendingId;
      };

      // Collected through wait_for_answer: a later identical ask is a new question.
      const collected = await askAndAnswer();
      expect(
        structured(await m.call(external, 'wait_for_answer', { pending_id: collected })),
      ).toMatchObject({ status: 'answered' });
      const afterCollected = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(afterCollected).toMatchObject({ status: 'open' });
      expect(afterCollected.pending_id).not.toBe(collected);

      // Not collected, but the agent moved on to another question: no longer a retry. (The
      // identical ask still open is reused, as any retry of an open one is.)
      const uncollected = await askAndAnswer();
      expect(uncollected).toBe(afterCollected.pending_id);
      const other = {
        questions: [
          {
            id: 'q9',
            prompt: 'Which port?',
            options: [
              { label: '80', description: 'http' },
              { label: '443', description: 'https' },
            ],
          },
        ],
      };
      expect(structured(await m.call(external, 'ask_user_question', other))).toMatchObject({
        status: 'open',
      });
      const later = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      expect(later).toMatchObject({ status: 'open' });
      expect(later.pending_id).not.toBe(uncollected);
    });

    it('wait_for_answer gets an answer given while it waits', async () => {
      const external = await m.connect(m.tokens.member, 'my-claude');
      const asked = structured(await m.call(external, 'ask_user_question', TWO_QUESTIONS));
      const pendingId = asked.pending_id as string;
      const waiting = m.call(external, 'wait_for_answer', {
        pending_id: pendingId,
        timeout_seconds: 30,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const colleague = await m.connect(m.tokens.colleague);
      await m.call(colleague, 'answer_question', {
        pending_id: pendingId,
        rejected: true,
        reject_reason: 'No',
      });
      expect(structured(await waiting)).toEqual({
        status: 'skipped',
        pending_id: pendingId,
        reason: 'No',
      });
    });

    it("tells an agent token whose client another of its person's clients asked", async () => {
      const minted = await memberAgentToken(m, 'Claude Code');
      const asker = await m.connect(minted.secret, 'claude-code');
      const asked = structured(await m.call(asker, 'ask_user_question', TWO_QUESTIONS));
      const pendingId = asked.pending_id as string;
      // Same token, another client name: another client of the same person.
      const other = await m.connect(minted.secret, 'other-tool');
      expect(toolErrorText(await m.call(other, 'wait_for_answer', { pending_id: pendingId }))).toBe(
        'clarification request not found for this client: your MCP client "claude-code" asked it, ' +
          'and only a client of that name collects its answer (the person can still answer it in Clarion)',
      );
      // Another person's agent (a colleague's, same workspace and client name) learns nothing.
      const stranger = await issueToken(m.h.store, {
        kind: 'external_agent',
        userId: m.colleague.userId,
        name: 'Elsewhere',
      });
      const outsider = await m.connect(stranger.secret, 'claude-code');
      for (const pending of [pendingId, 'no-such-pending-id']) {
        expect(
          toolErrorText(await m.call(outsider, 'wait_for_answer', { pending_id: pending })),
        ).toBe('clarification request not found');
      }
    });
  });
});
