/**
 * A state-changing route that reads no body refuses one (400, changing
 * nothing) instead of acting on whatever it was sent: text that is not JSON,
 * bytes that are not UTF-8, or a body meant for another route. No body and
 * `{}` (what the web app sends) stay welcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/wire/index.js';
import {
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const TOKEN = 'bodyless-routes-admin-token-0123456789';
const JUNK = '{"this is": not json';
const NOT_UTF8 = new Uint8Array([0x7b, 0xff, 0xfe]);

describe('routes that take no body', () => {
  let running: InProcessServer;
  let admin: ApiCall;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', TOKEN);
    admin = running.api;
  });
  afterAll(() => running.dispose());

  function send(method: string, path: string, body?: string | Uint8Array): Promise<Response> {
    return fetch(`${running.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
  }

  it('refuses a bundle cancel with a body that is not JSON, and the bundle stays live', async () => {
    const { startTask, pendingOf } = waitingItems(admin);
    const { sessionId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    const path = `/api/v1/clarification/${bundle.pending_id}/cancel`;

    const refused = await send('POST', path, JUNK);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'invalid_request',
      error: 'this route takes no body: send none, or {}',
    });
    const still = await admin<{ active: boolean }>(
      'GET',
      `/api/v1/clarification/${bundle.pending_id}`,
    );
    expect(still.json.active).toBe(true);

    expect((await send('POST', path, ' { } ')).status).toBe(200);
  });

  it('refuses a task delete with bytes that are not UTF-8, and deletes with none', async () => {
    const created = await admin<{ task: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'keep me',
    });
    const path = `/api/v1/tasks/${created.json.task.id}`;
    for (const body of [NOT_UTF8, '{"title":"meant for another route"}', '[]', 'null']) {
      expect((await send('DELETE', path, body)).status).toBe(400);
    }
    const tasks = await admin<{ tasks: { id: string }[] }>('GET', '/api/v1/tasks');
    expect(tasks.json.tasks.map((task) => task.id)).toContain(created.json.task.id);
    expect((await send('DELETE', path)).status).toBe(200);
  });

  it('refuses a body on every state-changing route the wire lists without one', async () => {
    const bodyless = ROUTES.filter(
      (route) => !route.body && route.method !== 'get' && route.path.startsWith('/api/v1/'),
    );
    expect(bodyless.length).toBeGreaterThan(10);
    for (const route of bodyless) {
      const path = route.path.replace(/\{\w+\}/g, 'no-such-id');
      const reply = await send(route.method.toUpperCase(), path, JUNK);
      expect(reply.status, `${route.method} ${route.path}`).toBe(400);
    }
  });
});
