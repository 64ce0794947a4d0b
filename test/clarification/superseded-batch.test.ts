/**
 * On PostgreSQL a replica looks for waits a newer turn superseded at every
 * poll (`ClarificationService.supersededWakes`), for every session it waits
 * on: with hundreds of agents waiting, a look that read each question apart
 * was steady load on the store. One look reads them all at once: its
 * statements do not grow with the waits, and it still ends exactly the
 * waits whose question a newer turn superseded.
 */
import { OperationNodeTransformer, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSessionState, startTurn } from '../../src/store/index.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { seedSession } from '../support/seed.js';

/** Waits per session: enough that reading each apart would show. */
const WAITS = 4;
/** The bundles' rows, which of them are current, which sessions live: one statement each. */
const LOOK_STATEMENTS = 3;
const WAIT_MS = 30_000;

function statementCounter(): { plugin: KyselyPlugin; counting: (on: boolean) => number } {
  let armed = false;
  let statements = 0;
  return {
    plugin: {
      transformQuery: (args) => new OperationNodeTransformer().transformNode(args.node),
      // Once a statement run, where `transformQuery` sees each subquery built apart too.
      transformResult: (args) => {
        if (armed) statements++;
        return Promise.resolve(args.result);
      },
    },
    counting(on) {
      armed = on;
      const counted = statements;
      statements = 0;
      return counted;
    },
  };
}

describe.each(DRIVERS)('one look for superseded waits, on %s', (driver) => {
  let h: Harness;
  const counter = statementCounter();

  beforeEach(async () => {
    h = await clarificationHarness(driver, { plugins: [counter.plugin] });
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('reads every wait’s question at once and ends only the superseded ones', async () => {
    const moved = h.seeded;
    const still = await seedSession(h.store, 'still');
    await setSessionState(h.store, still.session.id, 'running');
    const asks = (sessionId: string) =>
      // Distinct asks: the same one again is its retry, which joins the first's wait.
      Array.from({ length: WAITS }, (_, index) =>
        h.service.ask(
          sessionId,
          { ...TWO_QUESTIONS, context: `Setting up part ${index}` },
          { timeoutMs: WAIT_MS },
        ),
      );
    const movedAsks = asks(moved.session.id);
    const stillAsks = asks(still.session.id);
    await eventually(
      () =>
        h.waiters.pendingIdsOf(moved.session.id).length === WAITS &&
        h.waiters.pendingIdsOf(still.session.id).length === WAITS,
    );

    // A newer turn, started where nothing here hears of it: as on another replica.
    await startTurn(h.store, { sessionId: moved.session.id, taskId: moved.task.id });
    counter.counting(true);
    await h.service.supersededWakes().resync();
    expect(counter.counting(false)).toBeLessThanOrEqual(LOOK_STATEMENTS);

    for (const outcome of await Promise.all(movedAsks)) {
      expect(outcome).toMatchObject({ ok: true, outcome: 'open', reason: 'superseded' });
    }
    expect(h.waiters.pendingIdsOf(moved.session.id)).toEqual([]);
    expect(h.waiters.pendingIdsOf(still.session.id)).toHaveLength(WAITS);

    await h.service.expireSession(still.session.id, 'exited');
    for (const outcome of await Promise.all(stillAsks)) {
      expect(outcome).toMatchObject({ ok: true, outcome: 'open', reason: 'cancelled' });
    }
  });
});
