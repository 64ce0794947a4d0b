import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { registerObservabilityRoutes } from '../../src/http/observability-routes.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RepoContext } from '../../src/store/index.js';

/** A peer on this machine: no token asked, so no token store is ever read. */
function appWith() {
  const metrics = createMetrics();
  const app = new Hono();
  registerObservabilityRoutes(app, {
    metrics,
    store: {} as RepoContext,
    probe: () => ({ rss_bytes: 10, uptime_s: 20 }),
    peerAddress: () => '127.0.0.1',
  });
  return { app, metrics };
}

describe('observability routes', () => {
  it('serves every counter and gauge as JSON on /debug/vars', async () => {
    const { app, metrics } = appWith();
    metrics.responseTimeout('claim');
    metrics.responseOutcome('replayed');
    metrics.subscribersChanged(2);
    metrics.eventPublished();

    const response = await app.request('/debug/vars');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      clarification_response_timeout_total: { identity: 0, claim: 1, delivery: 0 },
      clarification_responses_total: { replayed: 1, claimed: 0, internal: 0 },
      events_subscribers: 2,
      events_published_total: 1,
      events_slow_consumers_closed_total: 0,
      process: { rss_bytes: 10, uptime_s: 20 },
    });
    expect(body.clarification_response_phase_duration_seconds).toEqual({
      identity: { count: 0, sum: 0 },
      claim: { count: 0, sum: 0 },
      delivery: { count: 0, sum: 0 },
    });
  });

  it('serves the same registry in Prometheus text format on /metrics', async () => {
    const { app, metrics } = appWith();
    metrics.responseTimeout('delivery');
    metrics.observePhase('identity', 2);

    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
    const text = await response.text();
    expect(text).toContain('# TYPE clarification_response_timeout_total counter');
    expect(text).toContain('clarification_response_timeout_total{phase="delivery"} 1');
    expect(text).toContain('clarification_response_timeout_total{phase="identity"} 0');
    expect(text).toContain('clarification_responses_total{outcome="unavailable"} 0');
    expect(text).toContain(
      'clarification_response_phase_duration_seconds_count{phase="identity"} 1',
    );
    expect(text).toContain('events_subscribers 0');
  });
});
