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

  it('answers 503 draining once a stop began, naming the replica', async () => {
    const app = new Hono();
    let draining = false;
    registerHealthRoute(app, {
      store: { driver: 'postgres', schema, ping: () => Promise.resolve() },
      replica: {
        id: 'replica-a',
        leases: () => Promise.resolve(0),
        listener: () => 'listening',
        lock: () => 'held',
      },
      draining: () => draining,
    });
    expect((await app.request('/healthz')).status).toBe(200);
    draining = true;
    const response = await app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'draining',
      driver: 'postgres',
      schema,
      replica: { id: 'replica-a' },
    });
  });

  it('answers 503 degraded while the replica takes its lock again, then ok', async () => {
    const app = new Hono();
    let lock: 'held' | 'retaking' = 'retaking';
    registerHealthRoute(app, {
      store: { driver: 'postgres', schema, ping: () => Promise.resolve() },
      replica: {
        id: 'replica-a',
        leases: () => Promise.resolve(2),
        listener: () => 'listening',
        lock: () => lock,
      },
    });
    const response = await app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'degraded',
      driver: 'postgres',
      schema,
      database: 'reachable',
      replica: { id: 'replica-a', leases: 2, listener: 'listening', lock: 'retaking' },
    });
    lock = 'held';
    const again = await app.request('/healthz');
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'ok', replica: { lock: 'held' } });
  });
});
