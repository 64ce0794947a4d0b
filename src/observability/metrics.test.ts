import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { debugVars } from './debug-vars.js';
import {
  createMetrics,
  RESPONSE_OUTCOMES,
  responseOutcomeOf,
  type RespondResultLike,
  type ResponseOutcome,
} from './metrics.js';
import { createResponseObserver, type ResponsePhase } from './response-observer.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const fixedProcess = () => ({ rss_bytes: 1, uptime_s: 2 });

describe('metrics', () => {
  it('starts every phase and outcome at zero', async () => {
    const vars = await debugVars(createMetrics().registry, fixedProcess);
    expect(vars.clarification_response_timeout_total).toEqual({
      identity: 0,
      claim: 0,
      delivery: 0,
    });
    expect(vars.clarification_responses_total).toEqual(
      Object.fromEntries(RESPONSE_OUTCOMES.map((outcome) => [outcome, 0])),
    );
    expect(vars.events_subscribers).toBe(0);
    expect(vars.events_published_total).toBe(0);
    expect(vars.process).toEqual({ rss_bytes: 1, uptime_s: 2 });
  });

  it('counts timeouts by phase only', async () => {
    const metrics = createMetrics();
    metrics.responseTimeout('claim');
    metrics.responseTimeout('claim');
    metrics.responseTimeout('identity');
    const vars = await debugVars(metrics.registry, fixedProcess);
    expect(vars.clarification_response_timeout_total).toEqual({
      identity: 1,
      claim: 2,
      delivery: 0,
    });
    const timeouts = (await metrics.registry.getMetricsAsJSON()).find(
      (metric) => metric.name === 'clarification_response_timeout_total',
    );
    for (const series of timeouts?.values ?? []) {
      expect(Object.keys(series.labels)).toEqual(['phase']);
    }
  });

  it('counts outcomes, events and subscribers, and sums phase durations', async () => {
    const metrics = createMetrics();
    metrics.responseOutcome('claimed');
    metrics.responseOutcome('not_found');
    metrics.eventPublished();
    metrics.subscribersChanged(3);
    metrics.observePhase('claim', 250);
    const vars = await debugVars(metrics.registry, fixedProcess);
    expect(vars.clarification_responses_total).toMatchObject({
      claimed: 1,
      not_found: 1,
      invalid: 0,
    });
    expect(vars.events_published_total).toBe(1);
    expect(vars.events_subscribers).toBe(3);
    expect(vars.clarification_response_phase_duration_seconds).toEqual({
      identity: { count: 0, sum: 0 },
      claim: { count: 1, sum: 0.25 },
      delivery: { count: 0, sum: 0 },
    });
  });

  it('labels every series with the replica, and /debug/vars keeps its shape', async () => {
    const metrics = createMetrics({ replica: 'replica-a' });
    metrics.responseTimeout('claim');
    metrics.subscribersChanged(2);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'clarification_response_timeout_total{phase="claim",replica="replica-a"} 1',
    );
    expect(text).toContain('events_subscribers{replica="replica-a"} 2');
    const vars = await debugVars(metrics.registry, fixedProcess);
    expect(vars.clarification_response_timeout_total).toEqual({
      identity: 0,
      claim: 1,
      delivery: 0,
    });
    expect(vars.events_subscribers).toBe(2);
  });

  it('keeps every fresh registry apart', async () => {
    const first = createMetrics();
    first.responseTimeout('delivery');
    const vars = await debugVars(createMetrics().registry, fixedProcess);
    expect(vars.clarification_response_timeout_total).toMatchObject({ delivery: 0 });
  });

  it('never labels a metric with a pending ID, whatever the callers pass', async () => {
    const metrics = createMetrics();
    const observer = createResponseObserver({
      logger: pino({ level: 'silent' }),
      metrics,
      driver: 'sqlite',
    });
    for (const phase of ['identity', 'claim', 'delivery'] as const) {
      observer.phase({ phase, outcome: 'ok', durationMs: 3, pendingId: randomUUID() });
      observer.timeout(phase);
    }
    // A caller that mixes up arguments must not mint a series either.
    metrics.responseOutcome(randomUUID() as ResponseOutcome);
    metrics.responseTimeout(randomUUID() as ResponsePhase);
    metrics.observePhase(randomUUID() as ResponsePhase, 1);

    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      for (const series of metric.values) {
        for (const [name, value] of Object.entries(series.labels)) {
          expect(name, metric.name).not.toMatch(/pending/i);
          expect(String(value), `${metric.name}{${name}}`).not.toMatch(UUID);
        }
      }
    }
    expect(await metrics.registry.metrics()).not.toMatch(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i,
    );
  });
});

describe('responseOutcomeOf', () => {
  it.each<[RespondResultLike, ResponseOutcome]>([
    [{ ok: true, claimed: true }, 'claimed'],
    [{ ok: true, claimed: false }, 'replayed'],
    [{ ok: false, code: 'invalid_request' }, 'invalid'],
    [{ ok: false, code: 'not_found' }, 'not_found'],
    [{ ok: false, code: 'not_active' }, 'not_active'],
    [{ ok: false, code: 'temporarily_unavailable' }, 'unavailable'],
    [{ ok: false, code: 'person_required' }, 'person_required'],
    [{ ok: false, code: 'caller_gone' }, 'caller_gone'],
    [{ ok: false, code: 'internal' }, 'internal'],
    [{ ok: false, code: 'something_new' }, 'internal'],
  ])('maps %j to %s', (result, outcome) => {
    expect(responseOutcomeOf(result)).toBe(outcome);
  });
});
