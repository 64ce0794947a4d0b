/**
 * A person's decision on a permission request whose agent dies while the
 * decision is being kept: the session's lock puts the exit's turn end first,
 * then the decision's write. The decision stands (its row, who made it), and
 * no copy is left for a restart to doubt, however much later it comes: the
 * turn it was made in has ended, and nothing would ever forget it. Both
 * dialects, through the registry and the REST respond a person uses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { endOrphanedUserInputs } from '../../src/turns/ended-user-inputs.js';
import { consentHandler, decisionRecorder } from '../../src/turns/user-input-bridge.js';
import {
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
} from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import { permissionRequest } from '../support/user-input-fixtures.js';
import {
  decisionRows,
  listedConsent,
  turnsHarness,
  type TurnsHarness,
} from '../support/turns-harness.js';

describe.each(DRIVERS)('a decision kept after its agent died, on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let reached: () => void = () => undefined;
  let release: () => void = () => undefined;
  const decisionHeld = () =>
    new Promise<void>((resolve) => {
      reached = resolve;
    });

  beforeEach(async () => {
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    h = await turnsHarness(driver, {
      // Holds the person's decision before its write, as a slow store would.
      recordDecision: (harness) => {
        const record = decisionRecorder(harness.sessions, harness.store);
        return Promise.resolve(async (decided, rule) => {
          reached();
          await gate;
          await record(decided, rule);
        });
      },
    });
    sessionId = (await h.createTask('publish the package')).session.id;
    await h.settled();
  });

  afterEach(async () => {
    release();
    await h.dispose();
  });

  const notes = async (type: string) =>
    h.store.db
      .selectFrom('task_session_messages')
      .select('content')
      .where('task_session_id', '=', sessionId)
      .where('type', '=', type)
      .execute();

  it('stands, and a later restart says nothing of it', async () => {
    const turnId = h.host.prompts.at(-1)?.turnId;
    const open = new AbortController().signal;
    const handler = consentHandler({ store: h.store }, () => h.turns.userInputs);
    void handler(sessionId, permissionRequest(sessionId), { turnId, signal: open, ended: open });
    const consent = await listedConsent(h, sessionId);

    const held = decisionHeld();
    const responded = h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    await held;
    // The agent dies; its turn's end commits while the decision waits to be kept.
    h.host.exit(sessionId);
    await h.settled();
    release();

    expect((await responded).status).toBe(200);
    expect(await decisionRows(h, sessionId)).toHaveLength(1);
    const recovery = { store: h.store, sessions: h.sessions, logger: silentLogger };
    expect(await endOrphanedUserInputs(recovery, { kind: 'all' }, 'restart')).toBe(0);
    expect(await notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);
    expect(await notes(USER_INPUT_ENDED_TYPE)).toEqual([]);
  });
});
