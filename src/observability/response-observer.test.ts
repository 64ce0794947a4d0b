import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { debugVars } from './debug-vars.js';
import { createMetrics } from './metrics.js';
import { createResponseObserver } from './response-observer.js';

/** A pino logger whose records land in an array, parsed. */
function capturingLogger() {
  const records: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        records.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, records };
}

describe('createResponseObserver', () => {
  it('writes one phase record with the agreed fields and observes its duration', async () => {
    const { logger, records } = capturingLogger();
    const metrics = createMetrics();
    const observer = createResponseObserver({ logger, metrics, driver: 'postgres' });

    observer.phase({ phase: 'identity', outcome: 'ok', durationMs: 4, pendingId: 'p-1' });
    observer.phase({ phase: 'claim', outcome: 'lost', durationMs: 1.5, pendingId: 'p-1' });

    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      msg: 'clarification.response.phase',
      level: 30,
      phase: 'identity',
      outcome: 'ok',
      duration_ms: 4,
      driver: 'postgres',
      pending_id: 'p-1',
    });
    expect(records[1]).toMatchObject({ phase: 'claim', outcome: 'lost', duration_ms: 1.5 });

    const vars = await debugVars(metrics.registry);
    expect(vars.clarification_response_phase_duration_seconds).toMatchObject({
      identity: { count: 1, sum: 0.004 },
      claim: { count: 1, sum: 0.0015 },
    });
    expect(vars.clarification_response_timeout_total).toEqual({
      identity: 0,
      claim: 0,
      delivery: 0,
    });
  });

  it('counts a timeout under its phase and nothing else', async () => {
    const { logger, records } = capturingLogger();
    const metrics = createMetrics();
    const observer = createResponseObserver({ logger, metrics, driver: 'sqlite' });

    observer.timeout('claim');

    const vars = await debugVars(metrics.registry);
    expect(vars.clarification_response_timeout_total).toEqual({
      identity: 0,
      claim: 1,
      delivery: 0,
    });
    expect(records).toEqual([]);
  });
});
