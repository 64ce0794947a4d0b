/**
 * The task and message routes over REST, each reply held to the wire's
 * schema of its route (`wireCheckedApi`), so what the server sends is what
 * the OpenAPI document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
});
