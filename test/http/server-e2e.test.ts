/**
 * The whole server in-process, over a real socket: the outcome table of
 * DESIGN §5.1 with real tokens, and the events a subscribed browser sees
 * while an agent asks and a person answers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { PRE_CLAIM_BUDGET_MS } from '../../src/clarification/index.js';
import type { ClarionEvent } from '../../src/events/index.js';
import type { RunningServer } from '../../src/server.js';
import { startTurn } from '../../src/store/index.js';
import { TWO_QUESTIONS, ANSWERS, eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';
import { SlowDatabase } from '../support/slow-database.js';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

describe.each(DRIVERS)('the server over a real socket on %s', (driver) => {
  let running: InProcessServer;
  let server: RunningServer;
  const slow = new SlowDatabase();

  beforeEach(async () => {
    running = await startInProcessServer(driver, ADMIN_TOKEN, { plugins: [slow] });
    server = running.server;
  });

  afterEach(async () => {
    await running.dispose();
  });

  function post(path: string, body: unknown, token = ADMIN_TOKEN) {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('answers every row of the outcome table', async () => {
    const sessionId = await seedAdminSession(server.store, 'e2e');
    const live = server.clarification.ask(sessionId, TWO_QUESTIONS);
    let pendingId = '';
    await eventually(async () => {
      const rows = await server.store.db
        .selectFrom('task_session_messages')
        .select('metadata')
        .where('task_session_id', '=', sessionId)
        .execute();
      pendingId = rows[0]
        ? (JSON.parse(rows[0].metadata) as { pending_id: string }).pending_id
        : '';
      return pendingId !== '';
    });
    const respond = (body: unknown, id = pendingId, token?: string) =>
      post(`/api/v1/clarification/${id}/respond`, body, token);

    const unauthenticated = await fetch(`${server.url}/api/v1/clarification/${pendingId}`);
    expect(unauthenticated.status).toBe(401);

    const invalid = await respond({ answers: [] });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      code: 'invalid_request',
      error: expect.any(String) as unknown,
    });

    const unknown = await respond(ANSWERS, '3f1c2e8a-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: 'clarification request not found',
      code: 'not_found',
    });

    slow.arm('select', PRE_CLAIM_BUDGET_MS + 1_000);
    const unavailable = await respond(ANSWERS);
    expect(unavailable.status).toBe(503);
    expect(await unavailable.json()).toEqual({
      error: 'clarification response is temporarily unavailable',
      code: 'temporarily_unavailable',
    });
    const vars = (await (await fetch(`${server.url}/debug/vars`)).json()) as Record<
      string,
      unknown
    >;
    expect(vars.clarification_response_timeout_total).toMatchObject({ identity: 1, claim: 0 });

    const won = await respond(ANSWERS);
    expect(won.status).toBe(200);
    const winner = (await won.json()) as { claimed: boolean; response: unknown };
    expect(winner.claimed).toBe(true);
    expect(await live).toMatchObject({ outcome: 'answered' });

    const replay = await respond({ rejected: true });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ ...winner, claimed: false });

    // A new turn supersedes a second, detached bundle: 409.
    const detached = await server.clarification.ask(
      sessionId,
      { ...TWO_QUESTIONS, context: 'two' },
      { timeoutMs: 1 },
    );
    if (!detached.ok) throw new Error('ask failed');
    await startTurn(server.store, {
      sessionId,
      taskId: (
        await server.store.db
          .selectFrom('task_sessions')
          .select('task_id')
          .where('id', '=', sessionId)
          .executeTakeFirstOrThrow()
      ).task_id,
    });
    const stale = await respond(ANSWERS, detached.pendingId);
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({
      error: 'clarification request is no longer active',
      code: 'not_active',
    });

    // A detached answer starts the session's demo agent and resumes it with a new turn.
    const resumed = await server.clarification.ask(
      sessionId,
      { ...TWO_QUESTIONS, context: 'resumed' },
      { timeoutMs: 1 },
    );
    if (!resumed.ok) throw new Error('ask failed');
    const resumedReply = await respond(ANSWERS, resumed.pendingId);
    expect(resumedReply.status).toBe(200);
    expect(await resumedReply.json()).toMatchObject({ claimed: true, status: 'answered' });
  });

  it('streams the ask and the answer to a subscribed client with rising revisions', async () => {
    const sessionId = await seedAdminSession(server.store, 'e2e');
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const frames: { type: string; event?: ClarionEvent }[] = [];
    socket.on('message', (data: Buffer) =>
      frames.push(JSON.parse(data.toString('utf8')) as { type: string }),
    );
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    await eventually(() => frames.some((frame) => frame.type === 'subscribed'));

    const live = server.clarification.ask(sessionId, TWO_QUESTIONS);
    await eventually(() => frames.filter((frame) => frame.type === 'event').length >= 3);
    const asked = frames.flatMap((frame) => (frame.event ? [frame.event] : []));
    expect(asked.map((event) => event.type)).toEqual([
      'message.added',
      'message.added',
      'session.state_changed',
    ]);
    expect(asked.every((event) => event.pending_action === 'clarification')).toBe(true);
    const pendingId = (asked[0]?.type === 'message.added' &&
      asked[0].message.metadata.pending_id) as string;

    expect((await post(`/api/v1/clarification/${pendingId}/respond`, ANSWERS)).status).toBe(200);
    await live;
    await eventually(() => frames.filter((frame) => frame.type === 'event').length >= 6);
    const all = frames.flatMap((frame) => (frame.event ? [frame.event] : []));
    const answered = all.slice(3);
    expect(answered.map((event) => event.type)).toEqual([
      'message.updated',
      'message.updated',
      'session.state_changed',
    ]);
    expect(answered.at(-1)).toMatchObject({ state: 'running', pending_action: null });
    const revisions = [...new Set(all.map((event) => event.revision))];
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(revisions.length).toBe(2);
    socket.close();
  });
});
