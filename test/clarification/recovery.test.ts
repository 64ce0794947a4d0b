/**
 * Start-up recovery (DESIGN §5.1 step 5) from the states a crash can leave,
 * built through the same store functions the resolver uses, then recovered
 * as a fresh start would. Recovery must restore without re-running finished
 * effects: no prompt is sent by recovery, ever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recoverClarifications, type RecoveryReport } from '../../src/clarification/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  claimBundle,
  currentTurn,
  markDispatchAttempted,
  reserveSuccessorTurn,
  startTurn,
  type MessageRecord,
} from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  type Harness,
} from '../support/clarification-harness.js';

const ANSWER = { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' };

describe.each(DRIVERS)('start-up recovery on %s', (driver) => {
  let h: Harness;
  let pendingId: string;

  beforeEach(async () => {
    h = await clarificationHarness(driver);
    const asked = await h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    pendingId = asked.pendingId;
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** What a crash right after the claim commit leaves: answered rows with the intent set. */
  async function claim(status: 'answered' | 'rejected' = 'answered'): Promise<MessageRecord[]> {
    const rows = await claimBundle(h.store, {
      pendingId,
      sessionId: h.seeded.session.id,
      turnId: (await currentTurn(h.store, h.seeded.session.id))?.id ?? '',
      status,
      responses: new Map([
        ['q1', ANSWER],
        ['q2', { ...ANSWER, question_id: 'q2', selected_options: ['q2_opt1'] }],
      ]),
      rejectReason: '',
      respondedAt: h.store.clock.timestamp(),
      respondedBy: { user_id: 'u', name: 'Ada', surface: 'rest' },
    });
    expect(rows).toHaveLength(2);
    return rows;
  }

  async function reserve(rows: MessageRecord[]) {
    return reserveSuccessorTurn(h.store, {
      sessionId: h.seeded.session.id,
      taskId: h.seeded.task.id,
      recovery: {
        pendingId,
        clarificationTurnId: rows[0]?.turn_id ?? '',
        messageIds: rows.map((row) => row.id),
      },
    });
  }

  async function recover(): Promise<RecoveryReport> {
    return recoverClarifications(h, silentLogger);
  }

  async function statuses() {
    return (await h.rows(pendingId)).map((row) => ({
      status: row.metadata.status,
      intent: row.metadata.response_delivery_pending ?? false,
    }));
  }

  it('restores a claim that was never handed off; a retry then claims it', async () => {
    await claim();
    expect(await recover()).toMatchObject({ claimsRestored: 1, claimsRetired: 0 });
    expect(await statuses()).toEqual([
      { status: 'pending', intent: false },
      { status: 'pending', intent: false },
    ]);
    const rows = await h.rows(pendingId);
    expect(rows.every((row) => row.metadata.response === undefined)).toBe(true);
    expect(rows.every((row) => row.metadata.agent_disconnected === true)).toBe(true);

    const retry = await h.respond(pendingId, {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', selected_options: ['q2_opt2'] },
      ],
    });
    expect(await retry.json()).toMatchObject({ claimed: true, status: 'answered' });
    expect(h.runtime.prompts).toHaveLength(1);
  });

  it('deletes an unattempted reservation and restores its rows: nothing was sent', async () => {
    const rows = await claim();
    const turn = await reserve(rows);
    expect(await recover()).toMatchObject({ reservationsRolledBack: 1, reservationsKept: 0 });
    expect(await statuses()).toEqual([
      { status: 'pending', intent: false },
      { status: 'pending', intent: false },
    ]);
    const turns = await h.store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('id', '=', turn.id)
      .execute();
    expect(turns).toEqual([]);
    expect((await currentTurn(h.store, h.seeded.session.id))?.id).toBe(rows[0]?.turn_id);
    expect(h.runtime.prompts).toEqual([]);
  });

  it('keeps an attempted reservation: the answer stays terminal and is not sent again', async () => {
    const rows = await claim();
    const turn = await reserve(rows);
    await markDispatchAttempted(h.store, turn.id);
    expect(await recover()).toMatchObject({ reservationsKept: 1, claimsRestored: 0 });
    expect(await statuses()).toEqual([
      { status: 'answered', intent: false },
      { status: 'answered', intent: false },
    ]);
    const current = await currentTurn(h.store, h.seeded.session.id);
    expect(current?.id).toBe(turn.id);
    expect(current?.metadata).toEqual({});
    expect(h.runtime.prompts).toEqual([]);

    const retry = await h.respond(pendingId, { rejected: true });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ claimed: false, status: 'answered' });
  });

  it('retires a claim whose bundle was superseded meanwhile, keeping the answer', async () => {
    await claim('rejected');
    await startTurn(h.store, { sessionId: h.seeded.session.id, taskId: h.seeded.task.id });
    expect(await recover()).toMatchObject({ claimsRetired: 1, claimsRestored: 0 });
    expect(await statuses()).toEqual([
      { status: 'rejected', intent: false },
      { status: 'rejected', intent: false },
    ]);
  });

  it('is a no-op the second time', async () => {
    await claim();
    await recover();
    const before = await h.rows(pendingId);
    expect(await recover()).toEqual({
      reservationsKept: 0,
      reservationsRolledBack: 0,
      claimsRestored: 0,
      claimsRetired: 0,
    });
    expect(await h.rows(pendingId)).toEqual(before);
  });
});
