/**
 * `GET /debug/vars` (expvar-like JSON) and `GET /metrics` (Prometheus text):
 * two views of the same registry, so they can never disagree (DESIGN §9).
 * Neither carries an identity: no label is a pending, session or user ID.
 */
import type { Env, Hono } from 'hono';
import { debugVars, processProbe, type ProcessProbe } from '../observability/index.js';
import type { ClarionMetrics } from '../observability/index.js';

export interface ObservabilityRoutesDeps {
  readonly metrics: Pick<ClarionMetrics, 'registry'>;
  /** Process figures for `/debug/vars`; tests pass a fixed one. */
  readonly probe?: ProcessProbe;
}

export function registerObservabilityRoutes<E extends Env>(
  app: Hono<E>,
  deps: ObservabilityRoutesDeps,
): void {
  const { registry } = deps.metrics;

  app.get('/debug/vars', async (c) => {
    c.header('cache-control', 'no-store');
    return c.json(await debugVars(registry, deps.probe ?? processProbe));
  });

  app.get('/metrics', async (c) => {
    const body = await registry.metrics();
    return c.body(body, 200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
  });
}
