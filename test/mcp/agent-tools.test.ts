/**
 * `/mcp` for a Clarion-spawned agent (agent token), on both dialects, with
 * the SDK's real client over real HTTP: ask and get labels back, skip,
 * cancel detaches, progress while waiting, invalid input, listing and
 * answering within the own session only, and authentication.
 */
import { describe, expect, it } from 'vitest';
import { QUESTION_CLOSED_MESSAGE } from '../../src/agents/mcp/results.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  ANSWERS_AS_RECEIVED,
  TWO_QUESTIONS,
  eventually,
} from '../support/clarification-harness.js';
import { initializeBody, mcpHarnessPerTest, structured, toolErrorText } from './mcp-harness.js';

describe.each(DRIVERS)('MCP tools for an agent token on %s', (driver) => {
  const m = mcpHarnessPerTest(driver, { progressIntervalMs: 40 });

  /** The pending ID of the agent's live ask, once its bundle is written. */
  async function livePendingId(sessionId = m.h.seeded.session.id): Promise<string> {
    await eventually(() => m.h.waiters.pendingIdsOf(sessionId).length > 0);
    const [pendingId] = m.h.waiters.pendingIdsOf(sessionId);
    if (!pendingId) throw new Error('no live bundle');
    return pendingId;
  }

  it('refuses requests without a valid bearer token with 401 JSON', async () => {
    const init = initializeBody('x');
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const bare = await fetch(m.url, { method: 'POST', headers, body: init });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: 'authentication required', code: 'unauthorized' });
    for (const authorization of ['Bearer clr_unknown', 'Basic abc', 'Bearer']) {
      const refused = await fetch(m.url, {
        method: 'POST',
        headers: { ...headers, authorization },
        body: init,
      });
      expect(refused.status).toBe(401);
    }
    // The browser cookie is not a credential here.
    const cookie = await fetch(m.url, {
      method: 'POST',
      headers: { ...headers, cookie: 'clarion_session=clr_whatever' },
      body: init,
    });
    expect(cookie.status).toBe(401);
  });

  it('offers an agent the three tools it can use', async () => {
    const client = await m.connect(m.tokens.agent);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'ask_user_question',
      'list_pending_questions',
      'wait_for_answer',
    ]);
    const ask = tools.find((tool) => tool.name === 'ask_user_question');
    expect(ask?.inputSchema.properties).toHaveProperty('questions');
  });

  it('asks in its own session and gets the answer with option labels', async () => {
    const client = await m.connect(m.tokens.agent);
    const call = m.call(client, 'ask_user_question', TWO_QUESTIONS);
    const pendingId = await livePendingId();
    const rest = await m.respond(pendingId, ANSWERS, m.tokens.member);
    expect(rest.status).toBe(200);

    expect(structured(await call)).toEqual({
      status: 'answered',
      pending_id: pendingId,
      answers: ANSWERS_AS_RECEIVED,
    });
    const rows = await m.h.rows(pendingId);
    expect(rows.map((row) => row.task_session_id)).toEqual([
      m.h.seeded.session.id,
      m.h.seeded.session.id,
    ]);
  });

  it('hands over the answer to a question whose ID is a name every object has', async () => {
    const client = await m.connect(m.tokens.agent);
    const options = [
      { id: 'yes', label: 'Yes', description: 'Carry on' },
      { id: 'no', label: 'No', description: 'Stop here' },
    ];
    const call = m.call(client, 'ask_user_question', {
      questions: [{ id: '__proto__', prompt: 'Go on?', options }],
    });
    const pendingId = await livePendingId();
    const answer = { question_id: '__proto__', selected_options: ['no'], custom_text: 'wait' };
    expect((await m.respond(pendingId, { answers: [answer] }, m.tokens.member)).status).toBe(200);

    const { answers } = structured(await call) as { answers: object };
    expect(Object.entries(answers)).toEqual([
      ['__proto__', { selected: [{ id: 'no', label: 'No' }], custom_text: 'wait' }],
    ]);
  });

  it('reports a skip with its reason', async () => {
    const client = await m.connect(m.tokens.agent);
    const call = m.call(client, 'ask_user_question', TWO_QUESTIONS);
    const pendingId = await livePendingId();
    const skipped = await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
      {
        rejected: true,
        reject_reason: 'Not now',
      },
    );
    expect(skipped).toMatchObject({ ok: true, claimed: true, status: 'rejected' });
    expect(structured(await call)).toEqual({
      status: 'skipped',
      pending_id: pendingId,
      reason: 'Not now',
    });
  });

  it('tells the agent a question cancelled or expired while it waits is closed, not open', async () => {
    const client = await m.connect(m.tokens.agent);
    const cancelled = m.call(client, 'ask_user_question', TWO_QUESTIONS);
    const pendingId = await livePendingId();
    const cancel = await m.h.service.cancel(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
    );
    expect(cancel).toEqual({ ok: true });
    const closed = await cancelled;
    expect(closed).toMatchObject({ isError: true, structuredContent: { code: 'not_active' } });
    expect(toolErrorText(closed)).toBe(QUESTION_CLOSED_MESSAGE);

    // Its session ended: the question expired with it.
    const expiring = m.call(client, 'ask_user_question', TWO_QUESTIONS);
    expect(await livePendingId()).not.toBe(pendingId);
    await m.h.service.expireSession(m.h.seeded.session.id, 'exited');
    expect(await expiring).toMatchObject({
      isError: true,
      structuredContent: { code: 'not_active' },
    });
  });

  it('detaches the bundle when the client cancels the call; it stays answerable', async () => {
    const client = await m.connect(m.tokens.agent);
    const controller = new AbortController();
    const call = m.call(client, 'ask_user_question', TWO_QUESTIONS, { signal: controller.signal });
    const pendingId = await livePendingId();
    controller.abort();
    await expect(call).rejects.toThrow();

    await eventually(async () =>
      (await m.h.rows(pendingId)).every((row) => row.metadata.agent_disconnected === true),
    );
    expect(m.h.waiters.has(pendingId)).toBe(false);
    const late = await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
      ANSWERS,
    );
    expect(late).toMatchObject({ ok: true, claimed: true, status: 'answered' });
    // The detached answer resumes the agent with a new turn.
    expect(m.h.runtime.prompts).toHaveLength(1);
    // The session keeps working after a cancelled call.
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(3);
  });

  it('detaches the bundle when the HTTP connection carrying the call closes', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${m.tokens.agent}`,
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await fetch(m.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' };
    await init.body?.cancel();
    await fetch(m.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const connection = new AbortController();
    const call = await fetch(m.url, {
      method: 'POST',
      headers: session,
      signal: connection.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      }),
    });
    expect(call.status).toBe(200);
    const pendingId = await livePendingId();
    connection.abort();

    await eventually(async () =>
      (await m.h.rows(pendingId)).every((row) => row.metadata.agent_disconnected === true),
    );
    expect(m.h.waiters.has(pendingId)).toBe(false);
  });

  it('sends progress notifications while waiting when given a progress token', async () => {
    const client = await m.connect(m.tokens.agent);
    const progress: { progress: number; message?: string | undefined }[] = [];
    const call = m.call(client, 'ask_user_question', TWO_QUESTIONS, {
      onprogress: (notification) => progress.push(notification),
      resetTimeoutOnProgress: true,
    });
    const pendingId = await livePendingId();
    await eventually(() => progress.length >= 3);
    await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
      ANSWERS,
    );
    expect(structured(await call)).toMatchObject({ status: 'answered' });
    const values = progress.map((entry) => entry.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(progress[0]?.message).toBe('Waiting for the person to answer');
  });

  it('answers invalid questions with a tool error that lists the issues', async () => {
    const client = await m.connect(m.tokens.agent);
    const shape = await m.call(client, 'ask_user_question', {
      questions: [{ prompt: 'Pick', options: [{ label: 'Only', description: 'one' }] }],
    });
    expect(toolErrorText(shape)).toBe(
      'invalid arguments for ask_user_question\n- questions.0.options: needs at least 2 options',
    );
    expect(shape.structuredContent).toEqual({
      error: 'invalid arguments for ask_user_question',
      code: 'invalid_request',
      issues: [{ path: 'questions.0.options', message: 'needs at least 2 options' }],
    });

    const duplicate = await m.call(client, 'ask_user_question', {
      questions: [
        {
          prompt: 'Pick',
          options: [
            { id: 'a', label: 'A', description: 'a' },
            { id: 'a', label: 'B', description: 'b' },
          ],
        },
      ],
    });
    expect(toolErrorText(duplicate)).toBe(
      'invalid arguments for ask_user_question\n- questions.0.options.1.id: duplicate option id: the same as options.0.id',
    );
    expect(duplicate.structuredContent).toMatchObject({ code: 'invalid_request' });
    expect(m.h.waiters.pendingIdsOf(m.h.seeded.session.id)).toEqual([]);
  });

  it('lists only its own session and answers nothing, not even its own questions', async () => {
    const own = await m.h.service.ask(m.h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    const other = await m.h.service.ask(m.otherSession.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!own.ok || !other.ok) throw new Error('asks failed');

    const agent = await m.connect(m.tokens.agent);
    const listed = structured(await m.call(agent, 'list_pending_questions', {}));
    expect(listed).toMatchObject({ next_cursor: null, pending: [{ pending_id: own.pendingId }] });
    expect(listed.pending).toHaveLength(1);

    // Not offered to an agent: the same refusal for its own bundle and another session's.
    for (const pendingId of [own.pendingId, other.pendingId]) {
      const refused = await m.call(agent, 'answer_question', { pending_id: pendingId, ...ANSWERS });
      expect(toolErrorText(refused)).toContain('Tool answer_question not found');
    }
    const ownRows = await m.h.rows(own.pendingId);
    expect(ownRows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);

    const member = await m.connect(m.tokens.member);
    const all = structured(await m.call(member, 'list_pending_questions', {}));
    expect((all.pending as { pending_id: string }[]).map((bundle) => bundle.pending_id)).toEqual([
      own.pendingId,
      other.pendingId,
    ]);
    const outsider = await m.connect(m.tokens.outsider);
    expect(structured(await m.call(outsider, 'list_pending_questions', {})).pending).toEqual([]);
  });

  it('pages the listing with a cursor and refuses a bad one', async () => {
    const asked: string[] = [];
    for (let index = 0; index < 3; index++) {
      const result = await m.h.service.ask(
        m.h.seeded.session.id,
        { ...TWO_QUESTIONS, context: `bundle ${index}` },
        { timeoutMs: 1 },
      );
      if (!result.ok) throw new Error('ask failed');
      asked.push(result.pendingId);
    }
    const client = await m.connect(m.tokens.agent);
    const first = structured(await m.call(client, 'list_pending_questions', { limit: 2 }));
    expect(typeof first.next_cursor).toBe('string');
    const second = structured(
      await m.call(client, 'list_pending_questions', { limit: 2, cursor: first.next_cursor }),
    );
    expect(second.next_cursor).toBeNull();
    const ids = [first, second].flatMap((page) =>
      (page.pending as { pending_id: string }[]).map((bundle) => bundle.pending_id),
    );
    expect(ids).toEqual(asked);

    const bad = await m.call(client, 'list_pending_questions', { cursor: 'nope' });
    expect(toolErrorText(bad)).toBe('invalid cursor\n- cursor: is not a cursor from this API');
  });

  it('answers through answer_question, and a replay returns the winner unclaimed', async () => {
    const asked = await m.h.service.ask(m.h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    const member = await m.connect(m.tokens.member);
    const args = { pending_id: asked.pendingId, ...ANSWERS };
    const first = structured(await m.call(member, 'answer_question', args));
    expect(first).toMatchObject({
      claimed: true,
      status: 'answered',
      response: { pending_id: asked.pendingId, rejected: false },
    });
    const replay = structured(
      await m.call(member, 'answer_question', { ...args, rejected: true, answers: undefined }),
    );
    expect(replay).toEqual({ ...first, claimed: false });

    const unknown = await m.call(member, 'answer_question', { pending_id: 'nope', rejected: true });
    expect(toolErrorText(unknown)).toBe('clarification request not found');
  });

  it('refuses an invalid answer to an open bundle with the issues', async () => {
    const asked = await m.h.service.ask(m.h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    const member = await m.connect(m.tokens.member);
    const invalid = await m.call(member, 'answer_question', {
      pending_id: asked.pendingId,
      answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }],
    });
    expect(toolErrorText(invalid)).toBe(
      'invalid clarification response\n- answers: expected exactly 2 answer(s), got 1',
    );
  });

  it('waits for an answer by pending ID, and times out open', async () => {
    const asked = await m.h.service.ask(m.h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    const agent = await m.connect(m.tokens.agent);
    const timedOut = await m.call(agent, 'wait_for_answer', {
      pending_id: asked.pendingId,
      timeout_seconds: 1,
    });
    expect(structured(timedOut)).toMatchObject({ status: 'open', pending_id: asked.pendingId });

    const waiting = m.call(agent, 'wait_for_answer', { pending_id: asked.pendingId });
    // Let the wait start first: this case is an answer given while it waits.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      asked.pendingId,
      ANSWERS,
    );
    expect(structured(await waiting)).toMatchObject({
      status: 'answered',
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    });

    const other = await m.connect(m.tokens.otherAgent);
    const hidden = await m.call(other, 'wait_for_answer', { pending_id: asked.pendingId });
    expect(toolErrorText(hidden)).toBe('clarification request not found');
  });

  it('keeps an MCP session to the principal that opened it', async () => {
    const client = await m.connect(m.tokens.agent);
    const transport = client.transport as { sessionId?: string } | undefined;
    const sessionId = transport?.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    const stolen = await fetch(m.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${m.tokens.otherAgent}`,
        'mcp-session-id': sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
    expect(m.endpoint.sessionCount()).toBe(1);
  });
});
