/**
 * The pre-claim budget (DESIGN §5.1 step 1): a slow database at identity and,
 * separately, at the claim gives 503 within the budget, leaves the bundle
 * pending, counts the timeout for that phase, and a retry claims normally.
 * The budget is shortened for the test (production's is 5 s): only that it
 * is the budget that answers is checked, not its length.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import {
  createMetrics,
  createResponseObserver,
  debugVars,
  type ClarionMetrics,
} from '../../src/observability/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { SlowDatabase, type StatementKind } from '../support/slow-database.js';

/** Still far from the 30 s delivery and 40 s client bounds, with the same slack. */
const PRE_CLAIM_MS = 2_000;

const UNAVAILABLE = {
  error: 'clarification response is temporarily unavailable',
  code: 'temporarily_unavailable',
};

describe.each(DRIVERS)('pre-claim budget on %s', (driver) => {
  let h: Harness;
  const slow = new SlowDatabase();
  let metrics: ClarionMetrics;
  let logLines: string[];

  beforeEach(async () => {
    metrics = createMetrics();
    logLines = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });
    const observer = createResponseObserver({ logger, metrics, driver });
    h = await clarificationHarness(driver, {
      plugins: [slow],
      observer,
      budgets: { preClaimMs: PRE_CLAIM_MS },
    });
  });

  function phaseRecords(): Record<string, unknown>[] {
    return logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.msg === 'clarification.response.phase');
  }

  afterEach(async () => {
    await h.dispose();
  });

  const cases: [phase: 'identity' | 'claim', statement: StatementKind][] = [
    ['identity', 'select'],
    ['claim', 'update'],
  ];

  it.each(cases)(
    'answers 503 when the %s phase is slow, then a retry claims',
    async (phase, statement) => {
      const call = h.service.ask(h.seeded.session.id, TWO_QUESTIONS);
      await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length > 0);
      const [pendingId = ''] = h.waiters.pendingIdsOf(h.seeded.session.id);

      slow.arm(statement, PRE_CLAIM_MS + 2_000);
      const started = Date.now();
      const response = await h.respond(pendingId, ANSWERS);
      const elapsed = Date.now() - started;
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual(UNAVAILABLE);
      // The pre-claim budget answered, not the 30 s delivery or 40 s client ones.
      expect(elapsed).toBeGreaterThanOrEqual(PRE_CLAIM_MS - 50);
      expect(elapsed).toBeLessThan(PRE_CLAIM_MS + 1_500);
      const vars = await debugVars(metrics.registry);
      expect(vars.clarification_response_timeout_total).toEqual({
        identity: phase === 'identity' ? 1 : 0,
        claim: phase === 'claim' ? 1 : 0,
        delivery: 0,
      });
      expect(phaseRecords()).toContainEqual(
        expect.objectContaining({
          phase,
          outcome: 'timeout',
          driver,
          pending_id: pendingId,
          duration_ms: expect.any(Number) as unknown,
        }),
      );

      // The budget answered while the statement was still held: what its hold had left to run
      // (up to 2 s) proves nothing more, so the statement answers now.
      slow.release();
      // The claim, if it ran, rolls back; the bundle stays pending and the agent still waits.
      await eventually(async () => {
        const rows = await h.rows(pendingId);
        return rows.every((row) => row.metadata.status === 'pending');
      }, 10_000);
      expect(h.waiters.has(pendingId)).toBe(true);
      // The held claim keeps its row locks until its statement answers; the retry starts after,
      // so its whole (short) budget is its own rather than spent waiting out those locks.
      await slow.released();

      const retry = await h.respond(pendingId, ANSWERS);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toMatchObject({ claimed: true, status: 'answered' });
      expect(await call).toMatchObject({ ok: true, outcome: 'answered' });
    },
  );
});
