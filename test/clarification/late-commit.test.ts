/**
 * The instant between the claim's budget check and its commit (DESIGN §5.1):
 * a claim whose commit is acknowledged only after the pre-claim budget ran
 * out answers 503, yet the claim stands, so it is delivered on its own. A
 * delivery that then fails is logged; nobody awaits it, so it must never
 * become an unhandled rejection, which would end a server's process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { SessionWriter } from '../../src/events/index.js';
import { StorageUnavailableError } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';

const PRE_CLAIM_MS = 1_500;

interface Script {
  /** Fail the first write after the late claim, as a full disk would. */
  failNextWrite: boolean;
}

/**
 * The claim is the one write bounded by the pre-claim budget's signal: it
 * commits at once, and its caller hears of it just after the budget ran out.
 */
function lateClaimAcknowledgement(sessions: SessionWriter, script: Script): SessionWriter {
  let claimed = false;
  return {
    pendingAction: (sessionId) => sessions.pendingAction(sessionId),
    deleteSessions: (change) => sessions.deleteSessions(change),
    async write(sessionId, change, options) {
      const budget = options?.signal;
      if (!claimed && budget) {
        claimed = true;
        const result = await sessions.write(sessionId, change, options);
        if (!budget.aborted) {
          await new Promise((resolve) => {
            budget.addEventListener('abort', resolve, { once: true });
          });
        }
        // Past the budget's own timer, so the respond has already answered 503.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return result;
      }
      if (claimed && script.failNextWrite) {
        script.failNextWrite = false;
        throw new StorageUnavailableError(
          'disk_full',
          new Error('SQLITE_FULL: database or disk is full'),
        );
      }
      return sessions.write(sessionId, change, options);
    },
  };
}

describe.each(DRIVERS)('a claim committed past its budget, on %s', (driver) => {
  let h: Harness;
  let script: Script;
  let logLines: Record<string, unknown>[];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => {
    unhandled.push(reason);
  };

  beforeEach(async () => {
    script = { failNextWrite: false };
    logLines = [];
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    h = await clarificationHarness(driver, {
      budgets: { preClaimMs: PRE_CLAIM_MS },
      logger,
      wrapSessions: (sessions) => lateClaimAcknowledgement(sessions, script),
    });
  });

  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await h.dispose();
  });

  async function askAndRespondLate() {
    const call = h.service.ask(h.seeded.session.id, TWO_QUESTIONS);
    await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length > 0);
    const [pendingId = ''] = h.waiters.pendingIdsOf(h.seeded.session.id);
    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(503);
    await expect(response.json()).resolves.toMatchObject({ code: 'temporarily_unavailable' });
    return { call, pendingId };
  }

  const logged = (msg: string, pendingId: string) =>
    logLines.find((line) => line.msg === msg && line.pending_id === pendingId);

  it('delivers the claim to the waiting agent once, and a retry replays it', async () => {
    const { call, pendingId } = await askAndRespondLate();

    await expect(call).resolves.toMatchObject({ ok: true, outcome: 'answered' });
    expect(logged('claim committed past its budget', pendingId)).toBeDefined();
    const retry = await h.respond(pendingId, ANSWERS);
    expect(retry.status).toBe(200);
    await expect(retry.json()).resolves.toMatchObject({ claimed: false, status: 'answered' });
    const rows = await h.rows(pendingId);
    expect(rows.map((row) => row.metadata.response_delivery_pending ?? false)).toEqual([
      false,
      false,
    ]);
  });

  it('logs a delivery that then fails, and leaves no unhandled rejection', async () => {
    // Detached, so the delivery reserves a successor turn: a write that throws, unlike the
    // live hand-off, which reports its own failure.
    const asked = await h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok || asked.outcome !== 'open') throw new Error('expected an open bundle');
    const { pendingId } = asked;
    script.failNextWrite = true;
    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(503);

    const failed = 'delivering a claim committed past its budget failed';
    await eventually(() => logged(failed, pendingId) !== undefined);
    const err = logged(failed, pendingId)?.err as { message?: string } | undefined;
    expect(err?.message).toContain('disk full');
    // A rejection is reported once the microtasks have run: give one a turn to surface.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unhandled).toEqual([]);
    expect(h.runtime.prompts).toEqual([]);
  });
});
