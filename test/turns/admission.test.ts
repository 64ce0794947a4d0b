/**
 * Tasks, message admission and the session queue over REST, on both
 * dialects, with agents played by the test. Only a person sends or changes
 * what a session is told: the services refuse an agent themselves, not only
 * the REST middleware in front of them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSession, listQueue } from '../../src/store/index.js';
import {
  admitMessage,
  clearQueued,
  editQueued,
  removeQueued,
  reorderQueued,
} from '../../src/turns/index.js';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('admission and queue on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function send(sessionId: string, text: string, key: string) {
    const response = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text,
      admission_key: key,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function transcript(sessionId: string) {
    const response = await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return (
      (await response.json()) as { messages: { type: string; author: string; content: string }[] }
    ).messages;
  }

  it('creates a task whose prompt starts the agent with its own MCP token', async () => {
    const created = await h.createTask('hello agent');
    expect(created.admission).toBe('sent');
    expect(created.session.state).toBe('running');
    expect(h.host.launches).toHaveLength(1);
    expect(h.host.launches[0]?.mcp.token).toMatch(/^clr_/);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['hello agent']);

    h.host.say(created.session.id, 'Hi there');
    h.host.endTurn(created.session.id);
    await h.pump.idle();
    expect((await transcript(created.session.id)).map((m) => [m.author, m.content])).toEqual([
      ['user', 'hello agent'],
      ['agent', 'Hi there'],
    ]);
    expect((await getSession(h.store, created.session.id))?.state).toBe('idle');
    const tasks = (await (await h.request('GET', '/api/v1/tasks')).json()) as {
      tasks: { id: string }[];
    };
    expect(tasks.tasks.map((task) => task.id)).toContain(created.task.id);
    const outsider = (await (
      await h.request('GET', '/api/v1/tasks', undefined, 'outsider')
    ).json()) as {
      tasks: unknown[];
    };
    expect(outsider.tasks).toEqual([]);
  });

  it('admits one message and one turn for ten retries of one admission key', async () => {
    const { session } = await h.createTask();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => send(session.id, 'do the thing', 'key-1')),
    );
    // The first starts the agent; each retry hears what it hears: `sent` once the start
    // took the message, or `queued` (202) when that start outlasted the admission's wait
    // (ADMISSION_START_WAIT_MS), as it may on a loaded machine. Never a second message.
    const sent = results.filter((result) => result.status === 200);
    const queued = results.filter((result) => result.status === 202);
    expect(sent.length + queued.length).toBe(10);
    expect(new Set(sent.map((result) => JSON.stringify(result.body))).size).toBeLessThanOrEqual(1);
    for (const result of sent) expect(result.body).toMatchObject({ outcome: 'sent' });
    const items = new Set(queued.map((result) => (result.body.item as { id: string }).id));
    expect(items.size).toBeLessThanOrEqual(1);
    await h.settled();
    expect(h.host.prompts).toHaveLength(1);
    expect((await transcript(session.id)).filter((m) => m.author === 'user')).toHaveLength(1);
    const turns = await h.store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('task_session_id', '=', session.id)
      .execute();
    expect(turns).toHaveLength(1);
  });

  it('queues a message while the agent is busy and runs it after the turn', async () => {
    const { session } = await h.createTask('first');
    const queued = await send(session.id, 'second', 'key-2');
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({
      outcome: 'queued',
      item: { text: 'second', owner: 'user' },
    });
    const again = await send(session.id, 'second', 'key-2');
    expect(again.body).toEqual(queued.body);

    h.host.endTurn(session.id);
    await h.pump.idle();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    expect(await listQueue(h.store, session.id)).toEqual([]);
    // The repeat of a started message reports it sent, not a second queue entry.
    expect((await send(session.id, 'second', 'key-2')).body).toMatchObject({ outcome: 'sent' });
  });

  it('edits, reorders, deletes and clears queued messages; a deleted item never starts', async () => {
    const { session } = await h.createTask('first');
    const ids: string[] = [];
    for (const [index, text] of ['a', 'b', 'c'].entries()) {
      const queued = await send(session.id, text, `q-${index}`);
      ids.push((queued.body.item as { id: string }).id);
    }
    const [a = '', b = '', c = ''] = ids;
    const edited = await h.request('PATCH', `/api/v1/sessions/${session.id}/queue/${b}`, {
      text: 'B',
      base_text: 'b',
    });
    expect(await edited.json()).toMatchObject({ item: { text: 'B' } });
    const order = await h.request('PUT', `/api/v1/sessions/${session.id}/queue/order`, {
      ids: [c, a, b],
    });
    expect(
      ((await order.json()) as { items: { id: string }[] }).items.map((item) => item.id),
    ).toEqual([c, a, b]);
    const partial = await h.request('PUT', `/api/v1/sessions/${session.id}/queue/order`, {
      ids: [c],
    });
    expect(partial.status).toBe(400);
    expect((await h.request('DELETE', `/api/v1/sessions/${session.id}/queue/${c}`)).status).toBe(
      200,
    );
    expect((await h.request('DELETE', `/api/v1/sessions/${session.id}/queue/${c}`)).status).toBe(
      404,
    );

    h.host.endTurn(session.id);
    await h.pump.idle();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'a']);
    const cleared = await h.request('DELETE', `/api/v1/sessions/${session.id}/queue`);
    expect(
      ((await cleared.json()) as { removed: { text: string }[] }).removed.map((i) => i.text),
    ).toEqual(['B']);
    h.host.endTurn(session.id);
    await h.pump.idle();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'a']);
  });

  it('refuses an agent, even in its own session, to send or change what its session is told', async () => {
    const { session } = await h.createTask('first');
    const queued = await send(session.id, 'ship it', 'k-ship');
    const itemId = (queued.body.item as { id: string }).id;
    const agent = {
      kind: 'agent',
      userId: h.principals.member.userId,
      sessionId: session.id,
    } as const;
    const refusals = [
      await admitMessage(h.turns, agent, session.id, {
        text: 'approve it',
        admissionKey: 'k-agent',
      }),
      await editQueued(h.turns, agent, session.id, itemId, {
        content: 'ship it to production',
        baseContent: 'ship it',
      }),
      await reorderQueued(h.turns, agent, session.id, [itemId]),
      await removeQueued(h.turns, agent, session.id, itemId),
      await clearQueued(h.turns, agent, session.id),
    ];
    expect(refusals.map((refusal) => (refusal.ok ? 'ok' : refusal.code))).toEqual(
      Array<string>(refusals.length).fill('person_required'),
    );
    // The person's message is queued as they wrote it; the agent's never reached the session.
    expect((await listQueue(h.store, session.id)).map((item) => item.content)).toEqual(['ship it']);
    h.host.endTurn(session.id);
    await h.pump.idle();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'ship it']);
  });

  it('fails the session when its agent dies mid-turn: bundles expire and answers get 409', async () => {
    const { session } = await h.createTask('first');
    const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    h.host.exit(session.id);
    await h.pump.idle();
    expect((await getSession(h.store, session.id))?.state).toBe('failed');
    expect((await h.rows(asked.pendingId)).map((row) => row.metadata.status)).toEqual([
      'expired',
      'expired',
    ]);
    const answer = await h.respond(asked.pendingId, { rejected: true });
    expect(answer.status).toBe(409);
    const refused = await send(session.id, 'anyone there?', 'late');
    expect(refused.status).toBe(409);
    // The refusal says why the agent failed, and that a restart may help.
    expect(refused.body).toMatchObject({
      code: 'session_failed',
      error: 'the agent exited (signal SIGKILL)',
      details: { failure: { code: 'exited', message: 'the agent exited (signal SIGKILL)' } },
    });
  });

  it('resumes a detached question through the host as exactly one new turn', async () => {
    const { session } = await h.createTask('first');
    const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    h.host.endTurn(session.id);
    await h.pump.idle();
    const answer = await h.respond(asked.pendingId, {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: 'just lint' },
      ],
    });
    expect(await answer.json()).toMatchObject({ claimed: true });
    expect(h.host.prompts).toHaveLength(2);
    expect(h.host.prompts[1]?.text).toContain('"Hand-written"');
    expect(h.host.prompts[1]?.text).toContain('"just lint"');
    const replay = await h.respond(asked.pendingId, { rejected: true });
    expect(await replay.json()).toMatchObject({ claimed: false });
    expect(h.host.prompts).toHaveLength(2);
  });

  it('pages the transcript with an opaque cursor and refuses a forged one', async () => {
    const { session } = await h.createTask('first');
    for (let index = 0; index < 5; index++) h.host.say(session.id, `line ${index}`);
    await h.pump.idle();
    const first = (await (
      await h.request('GET', `/api/v1/sessions/${session.id}/messages?limit=4`)
    ).json()) as {
      messages: unknown[];
      next_cursor: string;
    };
    expect(first.messages).toHaveLength(4);
    const second = (await (
      await h.request(
        'GET',
        `/api/v1/sessions/${session.id}/messages?limit=4&cursor=${first.next_cursor}`,
      )
    ).json()) as { messages: unknown[]; next_cursor: string | null };
    expect(second.messages).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    expect(
      (await h.request('GET', `/api/v1/sessions/${session.id}/messages?cursor=nope`)).status,
    ).toBe(400);
    expect(
      (await h.request('GET', `/api/v1/sessions/${session.id}/messages`, undefined, 'outsider'))
        .status,
    ).toBe(404);
  });

  it('deletes a task: stops its agent and expires its questions first', async () => {
    const { task, session } = await h.createTask('first');
    const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    expect(
      (await h.request('DELETE', `/api/v1/tasks/${task.id}`, undefined, 'outsider')).status,
    ).toBe(404);
    expect((await h.request('DELETE', `/api/v1/tasks/${task.id}`)).status).toBe(200);
    await h.pump.idle();
    expect(h.host.isStarted(session.id)).toBe(false);
    expect(await h.rows(asked.pendingId)).toEqual([]);
    expect(await getSession(h.store, session.id)).toBeUndefined();
  });
});
