/**
 * The HTTP application, built apart from `listen` so routes can be exercised
 * with `app.request()` in tests.
 */
import { Hono } from 'hono';
import type { Store } from '../store/index.js';

export interface AppDeps {
  readonly store: Pick<Store, 'driver' | 'schema' | 'ping'>;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.get('/healthz', async (c) => {
    const { driver, schema } = deps.store;
    try {
      await deps.store.ping();
    } catch {
      return c.json({ status: 'unavailable', driver, schema, database: 'unreachable' }, 503);
    }
    return c.json({ status: 'ok', driver, schema, database: 'reachable' });
  });

  return app;
}
