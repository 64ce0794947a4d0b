/**
 * The lists read their query strings strictly, all alike: the paged ones
 * `limit` in decimal digits only, the unpaged ones no key at all, and a key
 * the route does not read refused by name rather than dropped (which would
 * answer a list nobody asked for).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { wireCheckedApi } from '../support/wire-checked-api.js';

const TOKEN = 'list-queries-admin-token-0123456789';

describe('list query strings', () => {
  let running: InProcessServer;
  let admin: ApiCall;
  let lists: string[];
  let unpaged: string[];

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', TOKEN);
    admin = wireCheckedApi(running.api);
    const created = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'lists',
    });
    const sessionId = created.json.session.id;
    lists = [
      '/api/v1/pending',
      '/api/v1/tasks',
      `/api/v1/sessions/${sessionId}/messages`,
      '/api/v1/decisions',
    ];
    const workspaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const [workspace] = workspaces.json.workspaces;
    if (!workspace) throw new Error('the admin has a workspace');
    const tasks = await admin<{ tasks: { id: string }[] }>('GET', '/api/v1/tasks');
    const [task] = tasks.json.tasks;
    if (!task) throw new Error('a task was made');
    unpaged = [
      '/api/v1/agent-profiles',
      `/api/v1/tasks/${task.id}/sessions`,
      `/api/v1/sessions/${sessionId}/queue`,
      '/api/v1/user-inputs',
      '/api/v1/consent-rules',
      '/api/v1/users',
      '/api/v1/notification-channels',
      '/api/v1/workspaces',
      `/api/v1/workspaces/${workspace.id}/members`,
      '/api/v1/tokens',
    ];
  });
  afterAll(() => running.dispose());

  it('takes a limit in decimal digits', async () => {
    for (const list of lists) {
      expect((await admin('GET', `${list}?limit=10`)).status, list).toBe(200);
      expect((await admin('GET', `${list}?limit=010`)).status, list).toBe(200);
    }
  });

  it.each(['0x10', '1e1', '%2010', '10%20', '%2B10', '10.0', '0', '-1', '', '999999'])(
    'refuses limit=%s on every list',
    async (limit) => {
      for (const list of lists) {
        const reply = await admin('GET', `${list}?limit=${limit}`);
        expect(reply.status, list).toBe(400);
        expect(reply.json, list).toMatchObject({
          code: 'invalid_request',
          error: 'invalid query parameter "limit"',
          details: [{ path: 'limit' }],
        });
      }
    },
  );

  it('refuses a key the list does not read, naming it', async () => {
    for (const list of lists) {
      const reply = await admin('GET', `${list}?limitt=5`);
      expect(reply.status, list).toBe(400);
      expect(reply.json, list).toMatchObject({
        code: 'invalid_request',
        error: 'unknown query parameter "limitt"',
        details: [{ path: 'limitt', message: 'unknown query parameter' }],
      });
    }
  });

  it('refuses any key on a list without pages, naming it, and answers one without', async () => {
    for (const list of unpaged) {
      expect((await admin('GET', list)).status, list).toBe(200);
      for (const key of ['limitt', 'limit', 'cursor']) {
        const reply = await admin('GET', `${list}?${key}=5`);
        expect(reply.status, `${list}?${key}`).toBe(400);
        expect(reply.json, list).toMatchObject({
          code: 'invalid_request',
          error: `unknown query parameter "${key}"`,
          details: [{ path: key, message: 'unknown query parameter' }],
        });
      }
    }
  });

  it('pages the task list by its cursor, oldest first', async () => {
    for (const title of ['second', 'third']) {
      expect((await admin('POST', '/api/v1/tasks', { title })).status).toBe(201);
    }
    const all = await admin<{ tasks: { title: string }[]; next_cursor: string | null }>(
      'GET',
      '/api/v1/tasks',
    );
    expect(all.json.next_cursor).toBeNull();
    const titles: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await admin<{ tasks: { title: string }[]; next_cursor: string | null }>(
        'GET',
        `/api/v1/tasks?limit=1${query}`,
      );
      expect(page.status).toBe(200);
      expect(page.json.tasks).toHaveLength(1);
      titles.push(...page.json.tasks.map((task) => task.title));
      cursor = page.json.next_cursor;
      if (cursor === null) break;
    }
    expect(titles).toEqual(all.json.tasks.map((task) => task.title));
    expect(titles).toEqual(['lists', 'second', 'third']);
    const bad = await admin('GET', '/api/v1/tasks?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_request', error: 'invalid cursor' });
  });

  it('refuses a garbage cursor on every list in the same words', async () => {
    const tasks = await admin('GET', '/api/v1/tasks?cursor=not-a-cursor');
    expect(tasks.json).toEqual({
      code: 'invalid_request',
      error: 'invalid cursor',
      details: [{ path: 'cursor', message: 'is not a cursor from this API' }],
    });
    for (const list of lists) {
      const reply = await admin('GET', `${list}?cursor=not-a-cursor`);
      expect({ status: reply.status, json: reply.json }, list).toEqual({
        status: 400,
        json: tasks.json,
      });
    }
  });

  it('refuses a cursor of one list on another, as it refuses a garbage one', async () => {
    const page = await admin<{ tasks: { id: string }[]; next_cursor: string | null }>(
      'GET',
      '/api/v1/tasks?limit=1',
    );
    const cursor = encodeURIComponent(page.json.next_cursor ?? '');
    expect(cursor).not.toBe('');
    const garbage = await admin('GET', '/api/v1/decisions?cursor=not-a-cursor');
    expect(garbage.status).toBe(400);
    const elsewhere = await admin('GET', `/api/v1/decisions?cursor=${cursor}`);
    expect({ status: elsewhere.status, json: elsewhere.json }).toEqual({
      status: garbage.status,
      json: garbage.json,
    });
    expect((await admin('GET', `/api/v1/tasks?limit=1&cursor=${cursor}`)).status).toBe(200);
  });

  it("refuses one session's transcript cursor on another session's transcript", async () => {
    const transcripts: string[] = [];
    for (const title of ['transcript a', 'transcript b']) {
      const created = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
        title,
        prompt: 'hello',
      });
      expect(created.status).toBe(201);
      const path = `/api/v1/sessions/${created.json.session.id}/messages`;
      transcripts.push(path);
    }
    const cursors: string[] = [];
    for (const path of transcripts) {
      // The demo agent's reply makes the page of one row end before the transcript does.
      await expect
        .poll(
          async () => (await admin<{ messages: unknown[] }>('GET', path)).json.messages.length,
          {
            timeout: 20_000,
          },
        )
        .toBeGreaterThanOrEqual(2);
      const page = await admin<{ next_cursor: string | null }>('GET', `${path}?limit=1`);
      expect(page.json.next_cursor).not.toBeNull();
      cursors.push(encodeURIComponent(page.json.next_cursor ?? ''));
    }
    const [a = '', b = ''] = transcripts;
    const [fromA = '', fromB = ''] = cursors;
    const garbage = await admin('GET', `${a}?cursor=not-a-cursor`);
    expect(garbage.status).toBe(400);
    for (const [path, cursor] of [
      [b, fromA],
      [a, fromB],
    ] as const) {
      const elsewhere = await admin('GET', `${path}?cursor=${cursor}`);
      expect({ status: elsewhere.status, json: elsewhere.json }).toEqual({
        status: garbage.status,
        json: garbage.json,
      });
    }
    expect((await admin('GET', `${a}?cursor=${fromA}`)).status).toBe(200);
    expect((await admin('GET', `${b}?cursor=${fromB}`)).status).toBe(200);
  });
});
