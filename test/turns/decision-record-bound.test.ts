/**
 * A consent decision while PostgreSQL gives no reply (it froze, or the
 * network was cut): the respond request is answered within the decision's
 * bound (`DECISION_RECORD_MAX_MS`, shortened here), refused as not recorded
 * (503), the agent hearing nothing, not after the store's reply bound for the
 * write and another for the read-back of a commit whose reply never came.
 * Once PostgreSQL answers again, the retry decides. The decisions are kept
 * through a proxy the test cuts; everything else goes straight to the
 * database. PostgreSQL only: a SQLite statement runs in this process.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import { permissionRequest } from '../support/user-input-fixtures.js';
import { createSessionWriter } from '../../src/events/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { respondToUserInput } from '../../src/turns/index.js';
import { PRE_CLAIM_BUDGET_MS } from '../../src/tunables.js';
import { consentHandler, decisionRecorder } from '../../src/turns/user-input-bridge.js';
import type { ConsentView } from '../../src/user-input/index.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import {
  decisionRows,
  decisionsWatchersSee,
  listedConsent,
  turnsHarness,
  type TurnsHarness,
  unkeptDecisionIds,
} from '../support/turns-harness.js';

/** The decision's bound, and the store's reply bound it must not wait for. */
const RECORD_MAX_MS = 1_000;
const REPLY_MAX_MS = 4_000;

/**
 * One test's harness, with its decisions' proxy and the store through it, ended after the test.
 * The tests run at once: each waits out real bounds of seconds on its own database.
 */
async function rigged(context: TestContext) {
  const cut: { proxy?: TcpProxy; proxied?: Store; h?: TurnsHarness } = {};
  context.onTestFinished(async () => {
    // The proxy first: its end drops the connections still waiting for a reply.
    await cut.proxy?.close();
    await cut.proxied?.close();
    await cut.h?.dispose();
  });
  const h = (cut.h = await turnsHarness('postgres', {
    recordDecision: async (base) => {
      if (base.target.driver !== 'postgres') throw new Error('postgres only');
      const direct = new URL(base.target.url);
      const proxy = (cut.proxy = await startTcpProxy({
        host: direct.hostname,
        port: Number(direct.port),
      }));
      const url = new URL(direct);
      url.port = String(proxy.port);
      const proxied = (cut.proxied = await openStore(
        { driver: 'postgres', url: url.href, statementReplyMaxMs: REPLY_MAX_MS },
        { poolSize: 4 },
      ));
      const sessions = createSessionWriter({
        store: proxied,
        events: base.events,
        userInputPending: () => null,
      });
      return decisionRecorder(sessions, proxied, {
        maxMs: RECORD_MAX_MS,
        unkeptWaitMaxMs: REPLY_MAX_MS,
        unkeptRetryMs: 200,
      });
    },
  }));
  if (!cut.proxy || !cut.proxied) throw new Error('no proxy');
  const proxy: TcpProxy = cut.proxy;
  const proxied: Store = cut.proxied;
  const sessionId = (await h.createTask('publish the package')).session.id;

  async function askConsent(): Promise<{ consent: ConsentView; heard: () => unknown }> {
    const handler = consentHandler({ store: h.store }, () => h.turns.userInputs);
    let outcome: unknown;
    void handler(sessionId, permissionRequest(sessionId), {
      turnId: undefined,
      signal: new AbortController().signal,
      ended: new AbortController().signal,
    }).then((answer) => (outcome = answer));
    return { consent: await listedConsent(h, sessionId), heard: () => outcome };
  }

  const respond = (consent: ConsentView, optionId: string) =>
    h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, { option_id: optionId });

  const decisionOptions = async () =>
    (await decisionRows(h, sessionId)).map(
      (metadata) => (JSON.parse(metadata) as { option_id: string }).option_id,
    );

  /** Responds `allow` with PostgreSQL cut by `cutBy`; the refusal, how long it took, when the cut began. */
  async function refusedWhileCut(consent: ConsentView, cutBy: (proxy: TcpProxy) => void) {
    cutBy(proxy);
    const began = performance.now();
    const refused = await respond(consent, 'allow');
    const waitedMs = performance.now() - began;
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'temporarily_unavailable' });
    // At the decision's bound, not the store's reply bound (once or twice over).
    expect(waitedMs).toBeGreaterThanOrEqual(RECORD_MAX_MS - 50);
    expect(waitedMs).toBeLessThan(RECORD_MAX_MS + 2_000);
    return began;
  }

  /** PostgreSQL answers again; the retry waits out the cut connections (their reply bound). */
  async function retried(consent: ConsentView, cutAt: number, heard: () => unknown) {
    await sleep(50);
    expect(heard()).toBeUndefined();
    proxy.restore();
    await sleep(Math.max(0, cutAt + REPLY_MAX_MS + 500 - performance.now()));
    const chosen = await respond(consent, 'reject');
    expect(chosen.status).toBe(200);
    await context.expect
      .poll(heard)
      .toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    expect(await decisionOptions()).toEqual(['reject']);
  }

  return {
    h,
    proxy,
    proxied,
    sessionId,
    askConsent,
    respond,
    decisionOptions,
    refusedWhileCut,
    retried,
  };
}

describe.concurrent('a decision while postgres gives no reply', () => {
  it('is refused at its bound when the COMMIT gets no reply, without the read-back waiting', async (context) => {
    const { askConsent, refusedWhileCut, retried } = await rigged(context);
    const { consent, heard } = await askConsent();
    const cutAt = await refusedWhileCut(consent, (proxy) => {
      proxy.blackholeWhenSent('COMMIT');
    });
    await retried(consent, cutAt, heard);
  });

  it('is refused at its bound when PostgreSQL answers nothing from the start', async (context) => {
    const { askConsent, refusedWhileCut, retried } = await rigged(context);
    const { consent, heard } = await askConsent();
    const cutAt = await refusedWhileCut(consent, (proxy) => {
      proxy.blackhole();
    });
    await retried(consent, cutAt, heard);
  });

  it('leaves no decision standing when its COMMIT arrives after the refusal', async (context) => {
    const { h, proxy, sessionId, askConsent, respond, decisionOptions, refusedWhileCut } =
      await rigged(context);
    const { consent, heard } = await askConsent();
    await refusedWhileCut(consent, (proxy) => {
      proxy.holdWhenSent('COMMIT');
    });
    // The COMMIT reaches PostgreSQL now, and goes through: the row was kept after all.
    proxy.release();
    const rowsOfTheRequest = async () =>
      (await decisionOptions()).length + (await unkeptDecisionIds(h, sessionId)).length;
    await context.expect.poll(rowsOfTheRequest, { timeout: 3_000 }).toBe(1);
    await context.expect.poll(decisionOptions, { timeout: 3_000 }).toEqual([]);
    // Watchers never hear of it as a decision; the request still waits for one.
    expect(decisionsWatchersSee(h, sessionId)).toEqual([]);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
    await sleep(50);
    expect(heard()).toBeUndefined();

    const chosen = await respond(consent, 'reject');
    expect(chosen.status).toBe(200);
    await context.expect
      .poll(heard)
      .toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    expect(await decisionOptions()).toEqual(['reject']);
    expect(decisionsWatchersSee(h, sessionId)).toEqual(['reject']);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
  });

  it("lets a second answer decide while the refused one's COMMIT is still on its way", async (context) => {
    const { h, proxy, sessionId, askConsent, respond, decisionOptions, refusedWhileCut } =
      await rigged(context);
    const { consent, heard } = await askConsent();
    await refusedWhileCut(consent, (proxy) => {
      proxy.holdWhenSent('COMMIT');
    });
    // The second answer waits for the session's lock, which the refused write holds till its COMMIT.
    const second = respond(consent, 'reject');
    await sleep(RECORD_MAX_MS / 3);
    proxy.release();
    expect((await second).status).toBe(200);
    await context.expect
      .poll(heard)
      .toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    // The refused row, kept, was superseded by the second answer's write, in watchers' view too.
    await sleep(300);
    expect(decisionsWatchersSee(h, sessionId)).toEqual(['reject']);
    expect(await decisionOptions()).toEqual(['reject']);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
  });

  it('is refused within the pre-claim budget when finding the request gets no reply', async (context) => {
    const { h, proxy, proxied, askConsent, retried } = await rigged(context);
    const { consent, heard } = await askConsent();
    proxy.blackhole();
    // The credential lookup in front spent all but a second of the request's one budget.
    const leftMs = 1_000;
    const began = performance.now();
    const refused = await respondToUserInput(
      { store: proxied, userInputs: h.turns.userInputs, timers: systemTimers },
      { principal: h.principals.member, surface: 'rest', waitedMs: PRE_CLAIM_BUDGET_MS - leftMs },
      consent.id,
      { option_id: 'allow' },
    );
    const waitedMs = performance.now() - began;
    expect(refused).toMatchObject({ ok: false, code: 'temporarily_unavailable' });
    // At what was left of the budget, not the store's reply bound for the visibility read.
    expect(waitedMs).toBeGreaterThanOrEqual(leftMs - 50);
    expect(waitedMs).toBeLessThan(REPLY_MAX_MS - 1_000);
    // Nothing decided: the request still waits, and an answer once PostgreSQL is back decides.
    await sleep(50);
    expect(heard()).toBeUndefined();
    expect(h.turns.userInputs.get(consent.id)?.status).not.toBe('settled');
    await retried(consent, began, heard);
  });
});
