import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { registerHealthRoute } from './health-route.js';

const schema = { state: 'ready', steps: 21 } as const;

describe('GET /healthz', () => {
  it('reports the driver and schema when the database answers', async () => {
    const app = new Hono();
    registerHealthRoute(app, {
      store: { driver: 'sqlite', schema, ping: () => Promise.resolve() },
    });
    const response = await app.request('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      driver: 'sqlite',
      schema,
      database: 'reachable',
    });
  });

  it('answers 503 when the database does not', async () => {
    const app = new Hono();
    registerHealthRoute(app, {
      store: { driver: 'postgres', schema, ping: () => Promise.reject(new Error('gone')) },
    });
    const response = await app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
  });
});
