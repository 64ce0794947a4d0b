/**
 * The task and message routes over REST, each reply held to the wire's
 * schema of its route (`wireCheckedApi`), so what the server sends is what
 * the OpenAPI document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../../src/wire/index.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { wireCheckedApi } from '../support/wire-checked-api.js';

const TOKEN = 'task-routes-admin-token-0123456789';

describe('task routes', () => {
  let running: InProcessServer;
  let admin: ApiCall;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', TOKEN);
    admin = wireCheckedApi(running.api);
  });
  afterAll(() => running.dispose());

  it('creates a task without a prompt, its reply without an admission', async () => {
    const created = await admin('POST', '/api/v1/tasks', {
      title: 'no prompt',
    });
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty('admission');
  });

  it('creates a task with a prompt, its reply naming how the prompt was admitted', async () => {
    const created = await admin<{ admission?: string }>('POST', '/api/v1/tasks', {
      title: 'with prompt',
      prompt: 'hello',
    });
    expect(created.status).toBe(201);
    expect(['sent', 'queued']).toContain(created.json.admission);
  });

  it('names who started a task, in its reply and in the task list', async () => {
    const me = await admin<{ user: { id: string } }>('GET', '/api/v1/me');
    const created = await admin<{ task: { id: string; created_by: string | null } }>(
      'POST',
      '/api/v1/tasks',
      { title: 'whose task' },
    );
    expect(created.json.task.created_by).toBe(me.json.user.id);
    const listed = await admin<{ tasks: { id: string; created_by: string | null }[] }>(
      'GET',
      '/api/v1/tasks',
    );
    expect(listed.json.tasks.find((task) => task.id === created.json.task.id)).toMatchObject({
      created_by: me.json.user.id,
    });
  });

  it('refuses a person in no workspace as no_workspace, and an unknown workspace as not found', async () => {
    const bob = await admin<{ token: string }>('POST', '/api/v1/users', { name: 'bob' });
    expect(bob.status).toBe(201);
    const asBob = wireCheckedApi(bearerApi(running.server.url, bob.json.token));
    const nowhere = await asBob('POST', '/api/v1/tasks', { title: 'bob task' });
    expect(nowhere.status).toBe(403);
    expect(nowhere.json).toMatchObject({ code: 'no_workspace' });
    const unknown = await asBob('POST', '/api/v1/tasks', {
      title: 'bob task',
      workspace_id: 'no-such-workspace',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found', error: 'workspace not found' });
    expect((await asBob<{ tasks: unknown[] }>('GET', '/api/v1/tasks')).json.tasks).toEqual([]);
  });

  it('names the session, not a queued message, when the session of a queue is unknown', async () => {
    const queue = await admin('GET', '/api/v1/sessions/no-such-session/queue');
    expect(queue.status).toBe(404);
    expect(queue.json).toMatchObject({ code: 'not_found', error: 'session not found' });
    const item = await admin('DELETE', '/api/v1/sessions/no-such-session/queue/no-such-item');
    expect(item.json).toMatchObject({ code: 'not_found', error: 'session not found' });

    const created = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'queue',
    });
    const unknownItem = await admin(
      'DELETE',
      `/api/v1/sessions/${created.json.session.id}/queue/no-such-item`,
    );
    expect(unknownItem.status).toBe(404);
    expect(unknownItem.json).toMatchObject({ error: 'queued message not found' });
  });

  describe('a message of the documented length in any script', () => {
    // U+1F600: four bytes of UTF-8, two UTF-16 units, one character.
    const emoji = (count: number) => '\u{1F600}'.repeat(count);
    let sessionId: string;

    beforeAll(async () => {
      const created = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
        title: 'long messages',
      });
      sessionId = created.json.session.id;
    });

    it('takes MAX_MESSAGE_CHARS four-byte characters as a task prompt and as a message', async () => {
      const task = await admin('POST', '/api/v1/tasks', {
        title: 'long prompt',
        prompt: emoji(MAX_MESSAGE_CHARS),
      });
      expect(task.status).toBe(201);
      const message = await admin('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: emoji(MAX_MESSAGE_CHARS),
        admission_key: 'emoji-max',
      });
      expect([200, 202]).toContain(message.status);
    });

    it('takes them written as \\u escapes, as Python sends JSON by default', async () => {
      const text = '\\ud83d\\ude00'.repeat(MAX_MESSAGE_CHARS);
      const response = await fetch(`${running.server.url}/api/v1/sessions/${sessionId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"text":"${text}","admission_key":"emoji-escaped"}`,
      });
      expect([200, 202]).toContain(response.status);
    });

    it('refuses one character more as over the character limit, not the body cap', async () => {
      const over = { text: emoji(MAX_MESSAGE_CHARS + 1), admission_key: 'emoji-over' };
      const message = await admin('POST', `/api/v1/sessions/${sessionId}/messages`, over);
      expect(message.status).toBe(400);
      expect(message.json).toMatchObject({
        code: 'invalid_request',
        details: [{ path: 'text', message: `must be at most ${MAX_MESSAGE_CHARS} characters` }],
      });
      const task = await admin('POST', '/api/v1/tasks', {
        title: 'too long',
        prompt: emoji(MAX_MESSAGE_CHARS + 1),
      });
      expect(task.status).toBe(400);
      expect(task.json).toMatchObject({ details: [{ path: 'prompt' }] });
    });
  });
});
