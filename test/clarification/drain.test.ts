/**
 * A graceful stop's drain (issue 16): every live ask ends as open (its bundle
 * detached, still answerable), every `awaitDecision` as still waiting, and an
 * ask or a wait that arrives during the drain does not wait at all, so no
 * call holds the stopping server's connections; the answer given afterwards
 * is read back as decided.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ANSWERS,
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';

const LONG_MS = 60_000;
/** Far below `LONG_MS`: a wait that ended within it was ended by the drain. */
const PROMPTLY_MS = 5_000;

describe.each(DRIVERS)('draining the clarification service on %s', (driver) => {
  let h: Harness;

  afterEach(async () => {
    await h.dispose();
  });

  it('ends asks as open and waits as waiting, and later ones at once', async () => {
    h = await clarificationHarness(driver);
    const sessionId = h.seeded.session.id;
    let pendingId = '';
    const asked = h.service.ask(sessionId, TWO_QUESTIONS, {
      timeoutMs: LONG_MS,
      onBundle: (id) => {
        pendingId = id;
      },
    });
    await eventually(() => pendingId !== '' && h.waiters.has(pendingId));
    const waited = h.service.awaitDecision(h.principals.member, pendingId, { timeoutMs: LONG_MS });

    const t0 = performance.now();
    h.service.drain();
    expect(await asked).toMatchObject({ ok: true, pendingId, outcome: 'open', reason: 'detached' });
    expect(await waited).toEqual({ ok: true, outcome: 'waiting' });
    // The same ask again during the drain: its bundle, no wait.
    expect(await h.service.ask(sessionId, TWO_QUESTIONS, { timeoutMs: LONG_MS })).toMatchObject({
      ok: true,
      pendingId,
      outcome: 'open',
    });
    expect(
      await h.service.awaitDecision(h.principals.member, pendingId, { timeoutMs: LONG_MS }),
    ).toEqual({ ok: true, outcome: 'waiting' });
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(h.waiters.has(pendingId)).toBe(false);

    // Still answerable, and the answer is read back decided.
    expect((await h.respond(pendingId, ANSWERS)).status).toBe(200);
    expect(
      await h.service.awaitDecision(h.principals.member, pendingId, { timeoutMs: LONG_MS }),
    ).toMatchObject({ ok: true, outcome: 'decided' });
  });
});
