/**
 * Running-agent quotas over REST (issue 17, finding 9), on both dialects,
 * with agents played by the test host: a start past the user's or the
 * server's limit is 429 `quota_exceeded` with `Retry-After`, and leaves no
 * task row, no message, no turn and no process; an agent that exits frees
 * its place.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorkspaceMember, getSession, listTasks } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

interface Created {
  task: { id: string };
  session: { id: string; state: string };
  admission: string | null;
}

describe.each(DRIVERS)('running-agent quotas on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver, { agentQuota: { perUser: 2, perServer: 3 } });
    // A second user of the workspace, to reach the server's limit with.
    await addWorkspaceMember(h.store, {
      workspaceId: h.seeded.task.workspace_id,
      userId: (h.principals.outsider as { userId: string }).userId,
      role: 'member',
    });
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function create(as: string, prompt?: string) {
    const response = await h.request(
      'POST',
      '/api/v1/tasks',
      { title: 'Write the parser', ...(prompt ? { prompt } : {}) },
      as,
    );
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Created & { code?: string; details?: unknown },
    };
  }

  async function send(sessionId: string, key: string) {
    const response = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'go on',
      admission_key: key,
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, unknown>,
    };
  }

  async function taskCount(): Promise<number> {
    return (await listTasks(h.store, [h.seeded.task.workspace_id])).length;
  }

  async function transcriptLength(sessionId: string): Promise<number> {
    const response = await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return ((await response.json()) as { messages: unknown[] }).messages.length;
  }

  it('refuses a user’s next agent with 429 and creates nothing', async () => {
    for (const prompt of ['one', 'two']) expect((await create('member', prompt)).status).toBe(201);
    expect(h.host.launches).toHaveLength(2);
    const tasks = await taskCount();

    const refused = await create('member', 'three');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.body).toMatchObject({
      code: 'quota_exceeded',
      details: { scope: 'user', limit: 2 },
    });
    expect(await taskCount()).toBe(tasks);
    expect(h.host.launches).toHaveLength(2);
  });

  it('refuses a message that would start an agent past the quota, admitting nothing', async () => {
    const first = await create('member', 'one');
    await create('member', 'two');
    // A task without a prompt starts no agent, so it is not refused.
    const idle = await create('member');
    expect(idle.status).toBe(201);
    const before = await transcriptLength(idle.body.session.id);

    const refused = await send(idle.body.session.id, 'k1');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.body).toMatchObject({ code: 'quota_exceeded' });
    expect(await transcriptLength(idle.body.session.id)).toBe(before);
    expect((await getSession(h.store, idle.body.session.id))?.state).toBe('idle');
    expect(h.host.launches).toHaveLength(2);

    // Counted from the host: once an agent's process is gone its place is free.
    h.host.exit(first.body.session.id);
    const sent = await send(idle.body.session.id, 'k1');
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ outcome: 'sent' });
    expect(h.host.launches.map((launch) => launch.sessionId)).toContain(idle.body.session.id);
  });

  it('a message to a session whose agent runs needs no new place', async () => {
    const first = await create('member', 'one');
    await create('member', 'two');
    h.host.endTurn(first.body.session.id);
    const sent = await send(first.body.session.id, 'k2');
    expect(sent.status).toBe(200);
    expect(h.host.launches).toHaveLength(2);
  });

  it('refuses past the server’s limit with 429, whoever asks', async () => {
    await create('member', 'one');
    await create('member', 'two');
    expect((await create('outsider', 'three')).status).toBe(201);
    const tasks = await taskCount();

    const refused = await create('outsider', 'four');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.body).toMatchObject({
      code: 'quota_exceeded',
      details: { scope: 'server', limit: 3 },
    });
    expect(await taskCount()).toBe(tasks);
    expect(h.host.launches).toHaveLength(3);
  });

  it('holds the limit under concurrent creates', async () => {
    const replies = await Promise.all(
      Array.from({ length: 5 }, (_, i) => create('member', `prompt ${i}`)),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 201, 429, 429, 429]);
    expect(h.host.launches).toHaveLength(2);
  });
});
