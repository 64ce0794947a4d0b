/** `GET /healthz`: the database driver, the schema state and whether the database answers. */
import type { Env, Hono } from 'hono';
import type { Store } from '../store/index.js';

export interface HealthDeps {
  readonly store: Pick<Store, 'driver' | 'schema' | 'ping'>;
}

export function registerHealthRoute<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  app.get('/healthz', async (c) => {
    const { driver, schema } = deps.store;
    try {
      await deps.store.ping();
    } catch {
      return c.json({ status: 'unavailable', driver, schema, database: 'unreachable' }, 503);
    }
    return c.json({ status: 'ok', driver, schema, database: 'reachable' });
  });
}
