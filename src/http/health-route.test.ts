import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { ClockTimers, fakeClock } from '../../test/support/fakes.js';
import { HEALTH_CHECK_MAX_MS, SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '../tunables.js';
import { healthReply } from '../wire/index.js';
import { registerHealthRoute, type HealthDeps } from './health-route.js';

const schema = { state: 'ready', steps: 21 } as const;
const clock = fakeClock();
const never = () => new Promise<never>(() => undefined);

/** `/healthz` over `deps`, its reply checked against the wire schema both statuses share. */
async function health(deps: HealthDeps, advance?: (timers: ClockTimers) => void) {
  const app = new Hono();
  const timers = new ClockTimers(clock);
  registerHealthRoute(app, { checkBound: { ms: HEALTH_CHECK_MAX_MS, timers }, ...deps });
  const replied = Promise.resolve(app.request('/healthz'));
  if (advance) {
    // Time moves once the route started its check's budget.
    while (timers.active === 0) await new Promise((resolve) => setImmediate(resolve));
    advance(timers);
  }
  const response = await replied;
  const body = healthReply.parse(await response.json());
  return { response, body };
}

describe('GET /healthz', () => {
  it('reports the driver and schema when the database answers', async () => {
    const { response, body } = await health({
      store: { driver: 'sqlite', schema, clock, ping: () => Promise.resolve() },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(body).toEqual({ status: 'ok', driver: 'sqlite', schema, database: 'reachable' });
  });

  it('names the replica, its leases and its listener', async () => {
    const { body } = await health({
      store: { driver: 'postgres', schema, clock, ping: () => Promise.resolve() },
      replica: {
        id: 'replica-a',
        leases: () => Promise.resolve(3),
        listener: () => 'listening',
        lock: () => 'held',
      },
    });
    expect(body.replica).toEqual({
      id: 'replica-a',
      leases: 3,
      listener: 'listening',
      lock: 'held',
    });
  });

  it('answers 503 with Retry-After when the database fails, saying what memory knows', async () => {
    const { response, body } = await health({
      store: { driver: 'postgres', schema, clock, ping: () => Promise.reject(new Error('gone')) },
      replica: {
        id: 'replica-a',
        leases: never,
        listener: () => 'reconnecting',
        lock: () => 'held',
      },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(body).toEqual({
      status: 'unavailable',
      driver: 'postgres',
      schema,
      database: 'unreachable',
      replica: { id: 'replica-a', leases: 'unknown', listener: 'reconnecting', lock: 'held' },
    });
  });

  it('answers 503 once its bound passes when the database never answers the ping', async () => {
    const { response, body } = await health(
      {
        store: { driver: 'postgres', schema, clock, ping: never },
        replica: {
          id: 'replica-a',
          leases: () => Promise.resolve(1),
          listener: () => 'listening',
          lock: () => 'held',
        },
      },
      (timers) => {
        timers.advance(HEALTH_CHECK_MAX_MS);
      },
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(body).toMatchObject({
      status: 'unavailable',
      database: 'unreachable',
      replica: { id: 'replica-a', leases: 'unknown', listener: 'listening', lock: 'held' },
    });
  });

  it('answers 503 once its bound passes when the lease count never comes', async () => {
    const { response, body } = await health(
      {
        store: { driver: 'postgres', schema, clock, ping: () => Promise.resolve() },
        replica: {
          id: 'replica-a',
          leases: never,
          listener: () => 'listening',
          lock: () => 'held',
        },
      },
      (timers) => {
        timers.advance(HEALTH_CHECK_MAX_MS);
      },
    );
    expect(response.status).toBe(503);
    expect(body).toMatchObject({ status: 'unavailable', replica: { leases: 'unknown' } });
  });

  it('answers 503 draining with Retry-After once a stop began, naming the replica', async () => {
    let draining = false;
    const deps: HealthDeps = {
      store: { driver: 'postgres', schema, clock, ping: () => Promise.resolve() },
      replica: {
        id: 'replica-a',
        leases: () => Promise.resolve(0),
        listener: () => 'listening',
        lock: () => 'held',
      },
      draining: () => draining,
    };
    expect((await health(deps)).response.status).toBe(200);
    draining = true;
    const { response, body } = await health(deps);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(body).toEqual({
      status: 'draining',
      driver: 'postgres',
      schema,
      replica: { id: 'replica-a', listener: 'listening', lock: 'held' },
    });
  });

  it('answers 503 degraded with Retry-After while the replica takes its lock again, then ok', async () => {
    let lock: 'held' | 'retaking' = 'retaking';
    const deps: HealthDeps = {
      store: { driver: 'postgres', schema, clock, ping: () => Promise.resolve() },
      replica: {
        id: 'replica-a',
        leases: () => Promise.resolve(2),
        listener: () => 'listening',
        lock: () => lock,
      },
    };
    const { response, body } = await health(deps);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(body).toEqual({
      status: 'degraded',
      driver: 'postgres',
      schema,
      database: 'reachable',
      replica: { id: 'replica-a', leases: 2, listener: 'listening', lock: 'retaking' },
    });
    lock = 'held';
    const again = await health(deps);
    expect(again.response.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'ok', replica: { lock: 'held' } });
  });
});
