/**
 * Start-up recovery (DESIGN §5.1 step 5) from the states a crash can leave,
 * built through the same store functions the resolver uses, then recovered
 * as a fresh start would. Recovery must restore without re-running finished
 * effects: no prompt is sent by recovery, ever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import { recoverClarifications, type RecoveryReport } from '../../src/clarification/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  appendMessage,
  claimBundle,
  createSession,
  currentTurn,
  getSession,
  getTurn,
  reattachBundleRows,
  markDispatchAttempted,
  reserveSuccessorTurn,
  setSessionState,
  startTurn,
  transcriptPage,
  type MessageRecord,
} from '../../src/store/index.js';
import { DELIVERY_UNCONFIRMED_TYPE, TURN_INTERRUPTED_TEXTS } from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  type Harness,
  eventually,
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

  /** The seeded session's claim of `id`, but for its session and turn. */
  function claimOf(id: string, status: 'answered' | 'rejected') {
    return {
      pendingId: id,
      status,
      responses: new Map([
        ['q1', ANSWER],
        ['q2', { ...ANSWER, question_id: 'q2', selected_options: ['q2_opt1'] }],
      ]),
      rejectReason: status === 'rejected' ? 'not now' : '',
      respondedAt: h.store.clock.timestamp(),
      respondedBy: { user_id: h.memberId, name: 'Ada', surface: 'rest' as const },
    };
  }

  /** What a crash right after the claim commit leaves: answered rows with the intent set. */
  async function claim(status: 'answered' | 'rejected' = 'answered'): Promise<MessageRecord[]> {
    const rows = await claimBundle(h.store, {
      ...claimOf(pendingId, status),
      sessionId: h.seeded.session.id,
      turnId: (await currentTurn(h.store, h.seeded.session.id))?.id ?? '',
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
    // Reopened, it names no one as having answered it: the Decisions page filters on this.
    expect(rows.every((row) => row.metadata.responded_by === undefined)).toBe(true);
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

  it('finishes an external agent’s claim as its delivery would: its retry collects the decision', async () => {
    const external = await createSession(h.store, {
      taskId: h.seeded.task.id,
      agentProfile: EXTERNAL_AGENT_PROFILE,
    });
    const turn = await startTurn(h.store, { sessionId: external.id, taskId: h.seeded.task.id });
    await setSessionState(h.store, external.id, 'running');
    // Its call was cut; the person answered; the server died before the delivery's write.
    const asked = await h.service.ask(external.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    await claimBundle(h.store, {
      ...claimOf(asked.pendingId, 'rejected'),
      sessionId: external.id,
      turnId: turn.id,
    });

    expect(await recover()).toMatchObject({ claimsRecorded: 1, claimsRestored: 0 });
    expect((await h.rows(asked.pendingId)).map((row) => row.metadata)).toEqual([
      expect.objectContaining({ status: 'rejected', awaiting_collection: true }),
      expect.objectContaining({ status: 'rejected', awaiting_collection: true }),
    ]);
    expect((await getSession(h.store, external.id))?.state).toBe('running');
    const retry = await h.service.ask(external.id, TWO_QUESTIONS, { timeoutMs: 1 });
    expect(retry).toMatchObject({
      ok: true,
      pendingId: asked.pendingId,
      outcome: 'answered',
      response: { rejected: true, reject_reason: 'not now' },
    });
  });

  it('leaves a claim in flight here to its delivery or its responder (a takeover)', async () => {
    await claim();
    const report = await recoverClarifications(
      h,
      silentLogger,
      { kind: 'sessions', ids: [h.seeded.session.id] },
      (id, rows) => id === pendingId && rows.length === 2,
    );
    expect(report).toMatchObject({ claimsRestored: 0, claimsRetired: 0 });
    // Still answered and still waiting for its delivery: the session's new holder delivers it.
    expect(await statuses()).toEqual([
      { status: 'answered', intent: true },
      { status: 'answered', intent: true },
    ]);
  });

  it('leaves the reservation of a delivery in flight here: its mark and dispatch go on', async () => {
    const rows = await claim();
    const turn = await reserve(rows);
    const report = await recoverClarifications(
      h,
      silentLogger,
      { kind: 'sessions', ids: [h.seeded.session.id] },
      (id) => id === pendingId,
    );
    expect(report).toMatchObject({ reservationsRolledBack: 0, reservationsKept: 0 });
    expect(await statuses()).toEqual([
      { status: 'answered', intent: true },
      { status: 'answered', intent: true },
    ]);
    // The delivery's next step, the at-most-once mark, still finds its reservation.
    expect(await markDispatchAttempted(h.store, turn.id)).toBe(true);
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
    // Published, it still names the bundle it carried (for the unconfirmed-delivery check).
    expect(current?.metadata).toEqual({ prompt_dispatch_clarification_pending_id: pendingId });
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

  it('detaches a bundle a crash left attached, unless its wait may run on a live replica', async () => {
    // What a crash leaves: the ask's wait began (here, on replica A) and never ended.
    expect(await reattachBundleRows(h.store, pendingId, 'replica-a')).toHaveLength(2);
    const attached = async () =>
      (await h.rows(pendingId)).map((row) => row.metadata.agent_disconnected);
    const scope = { kind: 'all' } as const;
    const withALive = await recoverClarifications(h, silentLogger, scope, undefined, {
      live: new Set(['replica-a']),
    });
    expect(withALive).toMatchObject({ bundlesDetached: 0 });
    expect(await attached()).toEqual([false, false]);

    expect(await recover()).toMatchObject({ bundlesDetached: 1 });
    expect(await attached()).toEqual([true, true]);
    expect(await recover()).toMatchObject({ bundlesDetached: 0 });
    // Still open: a person may answer it, and the agent collect it.
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
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
      claimsRecorded: 0,
      bundlesDetached: 0,
      turnsClosed: 0,
      deliveriesUnconfirmed: 0,
      turnsInterrupted: 0,
    });
    expect(await h.rows(pendingId)).toEqual(before);
  });

  describe('a turn its agent was at work on when the server died', () => {
    async function personSent(): Promise<void> {
      await appendMessage(h.store, {
        sessionId: h.seeded.session.id,
        taskId: h.seeded.task.id,
        turnId: h.seeded.turn.id,
        authorType: 'user',
        type: 'message',
        content: 'Set up the parser',
        admissionKey: 'first-message',
      });
    }

    async function turnNotes(): Promise<MessageRecord[]> {
      return (await transcriptPage(h.store, h.seeded.session.id, { limit: 500 })).messages.filter(
        (row) => row.metadata.turn_outcome === 'interrupted',
      );
    }

    it('gets one note to send its message again, however often recovery runs', async () => {
      await personSent();
      expect(await recover()).toMatchObject({ turnsInterrupted: 1, deliveriesUnconfirmed: 0 });
      const [note, ...others] = await turnNotes();
      expect(others).toEqual([]);
      expect(note).toMatchObject({
        turn_id: h.seeded.turn.id,
        author_type: 'system',
        type: 'status',
        content: TURN_INTERRUPTED_TEXTS.restart,
        metadata: { turn_outcome: 'interrupted', loss: 'restart' },
      });
      expect((await getTurn(h.store, h.seeded.turn.id))?.completed_at).not.toBeNull();
      expect(await recover()).toMatchObject({ turnsInterrupted: 0 });
      expect(await turnNotes()).toHaveLength(1);
    });

    it('says a dead replica cut it off when a takeover recovers it', async () => {
      await personSent();
      const scope = { kind: 'sessions', ids: [h.seeded.session.id] } as const;
      await recoverClarifications(h, silentLogger, scope, undefined, { loss: 'replica_gone' });
      expect((await turnNotes()).map((row) => [row.content, row.metadata.loss])).toEqual([
        [TURN_INTERRUPTED_TEXTS.replica_gone, 'replica_gone'],
      ]);
    });

    it('gets none when no message was sent in it (the agent asked in a turn of its own)', async () => {
      expect(await recover()).toMatchObject({ turnsInterrupted: 0 });
      expect(await turnNotes()).toEqual([]);
      expect((await getTurn(h.store, h.seeded.turn.id))?.completed_at).not.toBeNull();
    });

    it('gets none when its session was no longer running it', async () => {
      await personSent();
      await setSessionState(h.store, h.seeded.session.id, 'idle');
      expect(await recover()).toMatchObject({ turnsInterrupted: 0 });
      expect(await turnNotes()).toEqual([]);
    });

    it('gets the unconfirmed answer’s note alone when an answer was handed off in it', async () => {
      await personSent();
      const waiting = h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 60_000 });
      await eventually(() => h.waiters.has(pendingId));
      const response = await h.respond(pendingId, {
        answers: [
          { question_id: 'q1', selected_options: ['q1_opt1'] },
          { question_id: 'q2', selected_options: ['q2_opt1'] },
        ],
      });
      expect(response.status).toBe(200);
      expect(await waiting).toMatchObject({ ok: true, outcome: 'answered' });
      expect(await recover()).toMatchObject({ turnsInterrupted: 0, deliveriesUnconfirmed: 1 });
      expect(await turnNotes()).toEqual([]);
    });
  });

  describe('an answer handed off whose turn never finished', () => {
    const ANSWERS = {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt2'] },
        { question_id: 'q2', selected_options: ['q2_opt1', 'q2_opt3'], custom_text: ' and e2e ' },
      ],
    };
    const RESEND_TEXT =
      'Which parser should we use?\nGenerated\n\nWhich checks should run?\nLint; Tests; and e2e';

    async function toolCall(status: string): Promise<MessageRecord> {
      return appendMessage(h.store, {
        sessionId: h.seeded.session.id,
        taskId: h.seeded.task.id,
        turnId: h.seeded.turn.id,
        authorType: 'agent',
        type: 'tool_call',
        content: 'Asking you a question',
        metadata: { toolCallId: `call-${status}`, status },
      });
    }

    async function transcript(): Promise<MessageRecord[]> {
      return (await transcriptPage(h.store, h.seeded.session.id, { limit: 500 })).messages;
    }

    async function notes(): Promise<MessageRecord[]> {
      return (await transcript()).filter((row) => row.type === DELIVERY_UNCONFIRMED_TYPE);
    }

    /** The agent's identical retry waits live; the person answers; the waiter takes it. */
    async function handOffLive(): Promise<void> {
      const waiting = h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 60_000 });
      await eventually(() => h.waiters.has(pendingId));
      const response = await h.respond(pendingId, ANSWERS);
      expect(response.status).toBe(200);
      expect(await waiting).toMatchObject({ ok: true, outcome: 'answered' });
    }

    it('gets one note, its tool call failed and its turn completed, however often recovery runs', async () => {
      const asking = await toolCall('in_progress');
      const done = await toolCall('completed');
      await handOffLive();
      expect(await statuses()).toEqual([
        { status: 'answered', intent: false },
        { status: 'answered', intent: false },
      ]);
      const before = h.events.events.length;

      // The server died here: recovery runs on what the store holds.
      expect(await recover()).toMatchObject({ deliveriesUnconfirmed: 1 });
      const [note, ...others] = await notes();
      expect(others).toEqual([]);
      expect(note).toMatchObject({
        turn_id: h.seeded.turn.id,
        author_type: 'system',
        metadata: {
          clarification_pending_id: pendingId,
          resend_text: RESEND_TEXT,
          resend_admission_key: `resend:${pendingId}`,
        },
      });
      const rows = await transcript();
      expect(rows.find((row) => row.id === asking.id)?.metadata).toMatchObject({
        status: 'failed',
        interrupted: true,
      });
      expect(rows.find((row) => row.id === done.id)?.metadata.status).toBe('completed');
      expect((await getTurn(h.store, h.seeded.turn.id))?.completed_at).not.toBeNull();
      // The answer itself stays as it was: terminal, never sent again by recovery.
      expect(await statuses()).toEqual([
        { status: 'answered', intent: false },
        { status: 'answered', intent: false },
      ]);
      expect(h.runtime.prompts).toEqual([]);

      // One session write: the note and the closed tool call share one new revision.
      const published = h.events.events.slice(before);
      expect(published.map((event) => event.type)).toEqual(['message.added', 'message.updated']);
      expect(new Set(published.map((event) => event.revision)).size).toBe(1);

      expect(await recover()).toMatchObject({ deliveriesUnconfirmed: 0, turnsClosed: 0 });
      expect(await notes()).toHaveLength(1);
    });

    it('notes the answer an attempted successor turn carried, in that turn', async () => {
      const rows = await claim();
      const turn = await reserve(rows);
      await markDispatchAttempted(h.store, turn.id);
      expect(await recover()).toMatchObject({ reservationsKept: 1, deliveriesUnconfirmed: 1 });
      const [note, ...others] = await notes();
      expect(others).toEqual([]);
      expect(note).toMatchObject({
        turn_id: turn.id,
        metadata: { clarification_pending_id: pendingId },
      });
      expect((await getTurn(h.store, turn.id))?.completed_at).not.toBeNull();
      expect(await recover()).toMatchObject({ deliveriesUnconfirmed: 0 });
      expect(await notes()).toHaveLength(1);
    });

    it('leaves an external agent’s turn open: that agent outlives a restart', async () => {
      const external = await createSession(h.store, {
        taskId: h.seeded.task.id,
        agentProfile: EXTERNAL_AGENT_PROFILE,
      });
      const turn = await startTurn(h.store, { sessionId: external.id, taskId: h.seeded.task.id });
      await recover();
      expect((await getTurn(h.store, turn.id))?.completed_at).toBeNull();
      expect((await getTurn(h.store, h.seeded.turn.id))?.completed_at).not.toBeNull();
    });

    it('writes no note for a claim that was never handed off, yet closes the cut-off turn', async () => {
      await claim();
      expect(await recover()).toMatchObject({ claimsRestored: 1, deliveriesUnconfirmed: 0 });
      expect(await notes()).toEqual([]);
      // The turn the restart cut off is closed all the same; the question stays answerable.
      expect((await getTurn(h.store, h.seeded.turn.id))?.completed_at).not.toBeNull();
      const retry = await h.respond(pendingId, { rejected: true });
      expect(retry.status).toBe(200);
      expect(await recover()).toMatchObject({ deliveriesUnconfirmed: 0 });
      expect(await notes()).toEqual([]);
    });
  });
});
