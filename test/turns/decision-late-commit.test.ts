/**
 * A consent decision whose write commits but is answered only after the
 * decision's bound (`DECISION_RECORD_MAX_MS`, shortened here): the answer is
 * refused (503), so the row its commit kept must not stand as a decision,
 * whether or not anyone answers again. Watchers never hear of it as one; the
 * row is superseded (it records no decision, and is no longer in the log).
 * The store's transactions are answered late here (a stalled disk, a slow
 * reply), on both engines; `decision-record-bound.test.ts` delays a real
 * COMMIT on its way to PostgreSQL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionRequest } from '../support/user-input-fixtures.js';
import { DRIVERS } from '../support/databases.js';
import { createSessionWriter } from '../../src/events/index.js';
import type { Store } from '../../src/store/index.js';
import { consentHandler, decisionRecorder } from '../../src/turns/user-input-bridge.js';
import type { ConsentView } from '../../src/user-input/index.js';
import {
  decisionRows,
  decisionsWatchersSee,
  listedConsent,
  turnsHarness,
  unkeptDecisionIds,
  type TurnsHarness,
} from '../support/turns-harness.js';

const RECORD_MAX_MS = 300;
/** How late the armed write's commit is answered. */
const LATE_MS = 800;

describe.each(DRIVERS)('a decision whose commit is answered after its bound on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  /** The next transaction's result comes this late (its commit already made). */
  let lateOnce = 0;

  beforeEach(async () => {
    lateOnce = 0;
    h = await turnsHarness(driver, {
      recordDecision: (base) => {
        const late: Store = {
          ...base.store,
          transaction: async (work, options) => {
            const result = await base.store.transaction(work, options);
            const ms = lateOnce;
            lateOnce = 0;
            if (ms > 0) await sleep(ms);
            return result;
          },
        };
        const sessions = createSessionWriter({
          store: late,
          events: base.events,
          userInputPending: () => null,
        });
        return Promise.resolve(
          decisionRecorder(sessions, base.store, { maxMs: RECORD_MAX_MS, unkeptRetryMs: 50 }),
        );
      },
    });
    sessionId = (await h.createTask('publish the package')).session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function askConsent() {
    const handler = consentHandler({ store: h.store }, () => h.turns.userInputs);
    const agent = new AbortController();
    let outcome: unknown;
    void handler(sessionId, permissionRequest(sessionId), {
      turnId: undefined,
      signal: agent.signal,
      ended: new AbortController().signal,
    }).then((answer) => (outcome = answer));
    const consent: ConsentView = await listedConsent(h, sessionId);
    return { consent, heard: () => outcome, agent };
  }

  const respond = (consent: ConsentView, optionId: string) =>
    h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, { option_id: optionId });

  const decisionOptions = async () =>
    (await decisionRows(h, sessionId)).map(
      (metadata) => (JSON.parse(metadata) as { option_id: string }).option_id,
    );

  const decisionLog = async () =>
    ((await (await h.request('GET', '/api/v1/decisions')).json()) as { decisions: unknown[] })
      .decisions;

  it('is refused, and its kept row stands as no decision though nobody answers again', async () => {
    const { consent, heard, agent } = await askConsent();
    lateOnce = LATE_MS;
    const refused = await respond(consent, 'allow');
    expect(refused.status).toBe(503);

    // Once the late write ended, its row is superseded; watchers never took it for a decision.
    await expect.poll(decisionOptions, { timeout: 3_000 }).toEqual([]);
    expect(decisionsWatchersSee(h, sessionId)).toEqual([]);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
    expect(heard()).toBeUndefined();

    // The agent gives up on its request; no decision was ever made, and none is shown.
    agent.abort();
    await expect.poll(heard).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(await decisionOptions()).toEqual([]);
    expect(decisionsWatchersSee(h, sessionId)).toEqual([]);
  });

  it('lets the next answer decide, once, in the store, the log and watchers alike', async () => {
    const { consent, heard } = await askConsent();
    lateOnce = LATE_MS;
    expect((await respond(consent, 'allow')).status).toBe(503);

    // Answered again while the refused write is still waited for.
    const chosen = await respond(consent, 'reject');
    expect(chosen.status).toBe(200);
    await expect.poll(heard).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    await sleep(LATE_MS + 300);
    expect(decisionsWatchersSee(h, sessionId)).toEqual(['reject']);
    expect(await decisionOptions()).toEqual(['reject']);
    expect(await decisionLog()).toHaveLength(1);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
  });
});
