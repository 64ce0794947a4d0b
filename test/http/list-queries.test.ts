/**
 * The paged lists read their query strings strictly, all alike: `limit` in
 * decimal digits only, and a key the route does not read refused by name
 * rather than dropped (which would answer a page nobody asked for).
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

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', TOKEN);
    admin = wireCheckedApi(running.api);
    const created = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'lists',
    });
    lists = [
      '/api/v1/pending',
      `/api/v1/sessions/${created.json.session.id}/messages`,
      '/api/v1/decisions',
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
});
