/**
 * POST /api/v1/clarification/:pendingId/respond over HTTP, on both dialects:
 * every row of the outcome table in DESIGN §5.1, bodies included.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskResult } from '../../src/clarification/index.js';
import {
  addWorkspaceMember,
  currentTurn,
  getSession,
  removeWorkspaceMember,
  setSessionState,
  startTurn,
} from '../../src/store/index.js';
import { armPause } from '../../src/support/failpoints.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';

const NORMALIZED_ANSWERS = [
  { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1', 'q2_opt3'], custom_text: 'and e2e' },
];

describe.each(DRIVERS)('respond on %s', (driver) => {
  let h: Harness;

  beforeEach(async () => {
    h = await clarificationHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** An agent asks and waits live; resolves with the pending ID and the pending call. */
  async function askLive(input: unknown = TWO_QUESTIONS) {
    const call = h.service.ask(h.seeded.session.id, input);
    await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length > 0);
    const [pendingId] = h.waiters.pendingIdsOf(h.seeded.session.id);
    if (!pendingId) throw new Error('no bundle');
    return { pendingId, call };
  }

  /** Two questions of the session, each with its live waiter (an agent's parallel calls). */
  async function askTwoLive() {
    const first = await askLive();
    const other = h.service.ask(h.seeded.session.id, {
      questions: [{ ...TWO_QUESTIONS.questions[0], prompt: 'And which queue?' }],
    });
    await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length === 2);
    const otherId = h.waiters
      .pendingIdsOf(h.seeded.session.id)
      .find((id) => id !== first.pendingId);
    if (!otherId) throw new Error('no second bundle');
    return { first, other, otherId };
  }

  /** An agent asks, and its live wait ends at once: the bundle is detached. */
  async function askDetached(input: unknown = TWO_QUESTIONS): Promise<string> {
    const result: AskResult = await h.service.ask(h.seeded.session.id, input, { timeoutMs: 1 });
    if (!result.ok || result.outcome !== 'open') throw new Error('expected an open bundle');
    return result.pendingId;
  }

  it('claims and delivers to the live waiter: 200 with the normalized response', async () => {
    const { pendingId, call } = await askLive();
    expect((await getSession(h.store, h.seeded.session.id))?.state).toBe('waiting_for_input');

    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      claimed: true,
      status: 'answered',
      response: {
        pending_id: pendingId,
        answers: NORMALIZED_ANSWERS,
        rejected: false,
        reject_reason: '',
        responded_at: expect.stringMatching(/\.\d{9}Z$/) as unknown,
        responded_by: { user_id: h.memberId, name: 'member', surface: 'rest' },
      },
    });

    const asked = await call;
    expect(asked).toMatchObject({ ok: true, outcome: 'answered', pendingId });
    if (asked.ok && asked.outcome === 'answered') expect(asked.response).toEqual(body.response);
    const rows = await h.rows(pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
    expect(rows.every((row) => row.metadata.response_delivery_pending === undefined)).toBe(true);
    expect(rows.map((row) => row.metadata.response)).toEqual(NORMALIZED_ANSWERS);
    expect((await getSession(h.store, h.seeded.session.id))?.state).toBe('running');
    expect(h.runtime.prompts).toEqual([]);
  });

  it('returns the prior winner, identical, to every later caller', async () => {
    const { pendingId, call } = await askLive();
    const first = await (await h.respond(pendingId, ANSWERS)).json();
    await call;
    const other = {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: 'something else' },
      ],
    };
    for (const body of [ANSWERS, other, { rejected: true }]) {
      const again = await h.respond(pendingId, body);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ ...(first as object), claimed: false });
    }
  });

  it('lets exactly one of 20 concurrent responders with different answers claim', async () => {
    const { pendingId, call } = await askLive();
    const bodies = Array.from({ length: 20 }, (_, index) =>
      index % 5 === 0
        ? { rejected: true, reject_reason: `skip ${index}` }
        : {
            answers: [
              { question_id: 'q1', selected_options: [index % 2 === 0 ? 'q1_opt1' : 'q1_opt2'] },
              { question_id: 'q2', custom_text: `responder ${index}` },
            ],
          },
    );
    const responses = await Promise.all(bodies.map((body) => h.respond(pendingId, body)));
    const results = (await Promise.all(responses.map((r) => r.json()))) as {
      claimed: boolean;
      response: unknown;
    }[];
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const winners = results.filter((result) => result.claimed);
    expect(winners).toHaveLength(1);
    // Every loser gets the winner's answers, not its own.
    for (const result of results) expect(result.response).toEqual(winners[0]?.response);
    const asked = await call;
    expect(asked).toMatchObject({ ok: true, outcome: 'answered' });
    if (asked.ok && asked.outcome === 'answered') {
      expect(asked.response).toEqual(winners[0]?.response);
    }
    expect(h.runtime.prompts).toEqual([]);
  });

  it('records a skip as rejected with its reason and tells the live agent', async () => {
    const { pendingId, call } = await askLive();
    const response = await h.respond(pendingId, {
      rejected: true,
      reject_reason: ' User skipped ',
    });
    expect(await response.json()).toMatchObject({
      claimed: true,
      status: 'rejected',
      response: { answers: [], rejected: true, reject_reason: 'User skipped' },
    });
    expect(await call).toMatchObject({ outcome: 'answered', response: { rejected: true } });
    const rows = await h.rows(pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
  });

  it('answers 400 with details for an invalid body, and changes nothing', async () => {
    const pendingId = await askDetached();
    const before = await h.rows(pendingId);
    const invalid: unknown[] = [
      '{not json',
      [],
      { answers: 'q1' },
      { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }] },
      { answers: [...ANSWERS.answers, { question_id: 'q3', custom_text: 'x' }] },
      { ...ANSWERS, unexpected: true },
      { ...ANSWERS, rejected: true },
      { answers: [ANSWERS.answers[0], { question_id: 'q2', selected_options: ['q1_opt1'] }] },
      {
        answers: [
          { question_id: 'q1', selected_options: ['q1_opt1', 'q1_opt2'] },
          ANSWERS.answers[1],
        ],
      },
      { answers: [ANSWERS.answers[0], { question_id: 'q2', custom_text: 'é'.repeat(2001) }] },
      { rejected: true, reject_reason: 'x'.repeat(2001) },
      { answers: [ANSWERS.answers[0], { question_id: 'q2', custom_text: '   ' }] },
    ];
    for (const body of invalid) {
      const response = await h.respond(pendingId, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const json = (await response.json()) as { code: string; error: string };
      expect(json.code).toBe('invalid_request');
      expect(json.error).toEqual(expect.any(String));
    }
    expect(await h.rows(pendingId)).toEqual(before);
  });

  it('answers the same 404 for an unknown bundle and for one the caller cannot see', async () => {
    const pendingId = await askDetached();
    const unknown = await h.respond('00000000-0000-4000-8000-000000000000', ANSWERS);
    const hidden = await h.respond(pendingId, ANSWERS, 'outsider');
    expect(unknown.status).toBe(404);
    expect(hidden.status).toBe(404);
    const unknownBody = await unknown.json();
    expect(await hidden.json()).toEqual(unknownBody);
    expect(unknownBody).toEqual({ error: 'clarification request not found', code: 'not_found' });
    const get = await h.app.request(`/api/v1/clarification/${pendingId}`, {
      headers: { 'x-test-principal': 'outsider' },
    });
    expect(get.status).toBe(404);
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
    ]);
  });

  it('refuses, as to an outsider, a person removed between their read and their answer or cancel', async () => {
    const { pendingId, call } = await askLive();
    const before = await h.rows(pendingId);
    const workspaceId = h.seeded.task.workspace_id;
    const NOT_FOUND = { error: 'clarification request not found', code: 'not_found' };
    const cancel = () =>
      Promise.resolve(
        h.app.request(`/api/v1/clarification/${pendingId}/cancel`, {
          method: 'POST',
          headers: { 'x-test-principal': 'member' },
        }),
      );
    for (const [point, decide] of [
      ['respond.before_claim', () => h.respond(pendingId, ANSWERS)],
      ['cancel.before_write', cancel],
    ] as const) {
      const pause = armPause(point, 10_000);
      try {
        const deciding = decide();
        await pause.reached;
        expect(await removeWorkspaceMember(h.store, workspaceId, h.memberId)).toBe(true);
        pause.release();
        const refused = await deciding;
        expect(refused.status).toBe(404);
        expect(await refused.json()).toEqual(NOT_FOUND);
      } finally {
        pause.release();
      }
      await addWorkspaceMember(h.store, { workspaceId, userId: h.memberId, role: 'member' });
    }
    // Nothing claimed, cancelled or delivered: the agent still waits for someone who belongs.
    expect(await h.rows(pendingId)).toEqual(before);
    expect(h.waiters.has(pendingId)).toBe(true);
    expect(h.runtime.prompts).toEqual([]);
    expect(await h.respond(pendingId, ANSWERS)).toHaveProperty('status', 200);
    expect(await call).toMatchObject({ outcome: 'answered' });
  });

  const NOT_ACTIVE = { error: 'clarification request is no longer active', code: 'not_active' };

  it('answers 409 for a bundle superseded by a newer turn, without rewriting it', async () => {
    const pendingId = await askDetached();
    await startTurn(h.store, { sessionId: h.seeded.session.id, taskId: h.seeded.task.id });
    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual(NOT_ACTIVE);
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
    ]);
  });

  it('answers 409 once the session has ended and its bundles expired', async () => {
    const pendingId = await askDetached();
    await setSessionState(h.store, h.seeded.session.id, 'completed');
    expect(await h.respond(pendingId, ANSWERS)).toHaveProperty('status', 409);
    const expired = await h.service.expireSession(h.seeded.session.id, 'exited');
    expect(expired.map((row) => row.metadata.status)).toEqual(['expired', 'expired']);
    const response = await h.respond(pendingId, { rejected: true });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual(NOT_ACTIVE);
  });

  it('cancels a live request for the operator; it then answers 409', async () => {
    const { pendingId, call } = await askLive();
    const cancel = await h.app.request(`/api/v1/clarification/${pendingId}/cancel`, {
      method: 'POST',
      headers: { 'x-test-principal': 'member' },
    });
    expect(cancel.status).toBe(200);
    expect(await call).toMatchObject({ outcome: 'open', reason: 'cancelled' });
    expect(await h.respond(pendingId, ANSWERS)).toHaveProperty('status', 409);
    const again = await h.app.request(`/api/v1/clarification/${pendingId}/cancel`, {
      method: 'POST',
      headers: { 'x-test-principal': 'member' },
    });
    expect(again.status).toBe(409);
  });

  it('a cancel leaves the session waiting only while another of its questions is still open', async () => {
    const state = async () => (await getSession(h.store, h.seeded.session.id))?.state;
    const cancel = (pendingId: string) =>
      h.app.request(`/api/v1/clarification/${pendingId}/cancel`, {
        method: 'POST',
        headers: { 'x-test-principal': 'member' },
      });
    const { first, other, otherId } = await askTwoLive();

    expect((await cancel(first.pendingId)).status).toBe(200);
    expect(await first.call).toMatchObject({ outcome: 'open', reason: 'cancelled' });
    expect(await state()).toBe('waiting_for_input');

    // Nothing is asked of the person any more: the agent, told so, works on.
    expect((await cancel(otherId)).status).toBe(200);
    expect(await other).toMatchObject({ outcome: 'open', reason: 'cancelled' });
    expect(await state()).toBe('running');
  });

  it('an answer leaves the session waiting while another of its questions still has a live waiter', async () => {
    const state = async () => (await getSession(h.store, h.seeded.session.id))?.state;
    const { first, other, otherId } = await askTwoLive();
    expect(await state()).toBe('waiting_for_input');

    expect((await h.respond(first.pendingId, ANSWERS)).status).toBe(200);
    expect(await first.call).toMatchObject({ outcome: 'answered' });
    // The agent still waits on the other: the person is still asked something.
    expect(await state()).toBe('waiting_for_input');

    const second = { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }] };
    expect((await h.respond(otherId, second)).status).toBe(200);
    expect(await other).toMatchObject({ outcome: 'answered' });
    expect(await state()).toBe('running');
  });

  it('refuses to cancel a question no agent waits on, says why, and leaves it answerable', async () => {
    const pendingId = await askDetached();
    const cancel = await h.app.request(`/api/v1/clarification/${pendingId}/cancel`, {
      method: 'POST',
      headers: { 'x-test-principal': 'member' },
    });
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toEqual({
      code: 'not_active',
      error:
        'no agent waits on this question now, so there is nothing to cancel: answer or skip it instead',
    });
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
    ]);
    expect(await h.respond(pendingId, ANSWERS)).toHaveProperty('status', 200);
  });

  it('resumes the agent with a new turn when its call was cancelled as the answer was handed over', async () => {
    const call = new AbortController();
    const asked = h.service.ask(h.seeded.session.id, TWO_QUESTIONS, {
      signal: call.signal,
      // The hand-off's read of the caller's token; the agent cancels its call meanwhile.
      entitled: () => {
        call.abort();
        return Promise.resolve(true);
      },
    });
    await eventually(() => h.waiters.pendingIdsOf(h.seeded.session.id).length > 0);
    const [pendingId] = h.waiters.pendingIdsOf(h.seeded.session.id);
    if (!pendingId) throw new Error('no bundle');

    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(200);
    // The cancelled call's result goes to nobody, so the answer must not be handed to it.
    expect(await asked).toMatchObject({ outcome: 'open', reason: 'caller_gone' });
    expect(h.runtime.prompts).toHaveLength(1);
    expect(h.runtime.prompts[0]?.text).toContain('"Generated"');
  });

  it('resumes a detached agent with a new turn that quotes the answer', async () => {
    const pendingId = await askDetached();
    const rows = await h.rows(pendingId);
    expect(rows.every((row) => row.metadata.agent_disconnected === true)).toBe(true);
    const clarificationTurn = rows[0]?.turn_id;

    const response = await h.respond(pendingId, ANSWERS);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ claimed: true, status: 'answered' });
    expect(h.runtime.prompts).toHaveLength(1);
    const prompt = h.runtime.prompts[0];
    expect(prompt?.text).toContain('"Generated"');
    expect(prompt?.text).toContain('"Lint", "Tests"');
    expect(prompt?.text).toContain('wrote "and e2e"');
    const turn = await currentTurn(h.store, h.seeded.session.id);
    expect(turn?.id).toBe(prompt?.turnId);
    expect(turn?.id).not.toBe(clarificationTurn);
    // Published: only the bundle it carried stays named (recovery checks whether it finished).
    expect(turn?.metadata).toEqual({ prompt_dispatch_clarification_pending_id: pendingId });
    const after = await h.rows(pendingId);
    expect(after.every((row) => row.metadata.response_delivery_pending === undefined)).toBe(true);
    expect((await getSession(h.store, h.seeded.session.id))?.state).toBe('running');
  });

  it('records a detached rejection without resuming the agent', async () => {
    const pendingId = await askDetached();
    const response = await h.respond(pendingId, { rejected: true });
    expect(await response.json()).toMatchObject({ claimed: true, status: 'rejected' });
    expect(h.runtime.prompts).toEqual([]);
    expect((await currentTurn(h.store, h.seeded.session.id))?.id).toBe(
      (await h.rows(pendingId))[0]?.turn_id,
    );
  });

  it('restores the bundle when the agent cannot take the answer, and a retry then claims', async () => {
    const pendingId = await askDetached();
    h.runtime.unavailable = 'agent process is not running';
    const failed = await h.respond(pendingId, ANSWERS);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ code: 'internal' });
    expect(h.runtime.prompts).toEqual([]);
    const restored = await h.rows(pendingId);
    expect(restored.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    expect(restored.every((row) => row.metadata.response === undefined)).toBe(true);
    const turns = await h.store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('task_session_id', '=', h.seeded.session.id)
      .execute();
    expect(turns).toHaveLength(1);

    h.runtime.unavailable = undefined;
    const retry = await h.respond(pendingId, ANSWERS);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ claimed: true });
    expect(h.runtime.prompts).toHaveLength(1);
  });

  it('restores the bundle when the agent is not ready within the delivery budget, and a retry then claims', async () => {
    const deliveryMs = 900;
    await h.dispose();
    h = await clarificationHarness(driver, { budgets: { deliveryMs } });
    const pendingId = await askDetached();
    h.runtime.startSlowly();
    // Without the bound, the respond waits for the start: here 5 s, for a real agent up to its start timeout.
    const startsLate = setTimeout(() => {
      h.runtime.finishStart();
    }, 5_000);
    try {
      const started = performance.now();
      const failed = await h.respond(pendingId, ANSWERS);
      const tookMs = performance.now() - started;
      expect(failed.status).toBe(500);
      expect(await failed.json()).toMatchObject({
        code: 'internal',
        error: 'clarification response could not be delivered',
      });
      // The readiness check gets the budget less a third kept for the prompt.
      expect(tookMs).toBeGreaterThanOrEqual((deliveryMs * 2) / 3 - 50);
      expect(tookMs).toBeLessThan(4_000);
      expect(h.runtime.prompts).toEqual([]);
      const restored = await h.rows(pendingId);
      expect(restored.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    } finally {
      clearTimeout(startsLate);
    }

    // The start went on meanwhile; the person's retry finds the agent ready.
    h.runtime.finishStart();
    const retry = await h.respond(pendingId, ANSWERS);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ claimed: true });
    expect(h.runtime.prompts).toHaveLength(1);
  });

  it('keeps the answer terminal when dispatch fails after the attempt: never sent twice', async () => {
    const pendingId = await askDetached();
    h.runtime.behaviour = 'fail';
    const failed = await h.respond(pendingId, ANSWERS);
    expect(failed.status).toBe(500);
    expect(h.runtime.prompts).toHaveLength(1);
    h.runtime.behaviour = 'accept';
    const retry = await h.respond(pendingId, ANSWERS);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ claimed: false, status: 'answered' });
    expect(h.runtime.prompts).toHaveLength(1);
  });

  it('reuses the bundle for an identical retry of the ask in the same session', async () => {
    const first = await askDetached();
    const second = await askDetached();
    expect(second).toBe(first);
    const third = await askDetached({ ...TWO_QUESTIONS, context: 'different' });
    expect(third).not.toBe(first);
  });

  it('lists active bundles for the inbox, oldest first, only to those who may see them', async () => {
    const first = await askDetached();
    const second = await askDetached({ ...TWO_QUESTIONS, context: 'second' });
    const list = async (as: 'member' | 'outsider' | 'agent', query = '') =>
      (await (
        await h.app.request(`/api/v1/pending${query}`, { headers: { 'x-test-principal': as } })
      ).json()) as {
        bundles: { pending_id: string; questions: unknown[] }[];
        next_cursor: string | null;
      };
    const all = await list('member');
    expect(all.bundles.map((bundle) => bundle.pending_id)).toEqual([first, second]);
    expect(all.bundles[0]?.questions).toHaveLength(2);
    expect((await list('agent')).bundles).toHaveLength(2);
    expect((await list('outsider')).bundles).toEqual([]);
    const page = await list('member', '?limit=1');
    expect(page.bundles.map((bundle) => bundle.pending_id)).toEqual([first]);
    const rest = await list('member', `?limit=1&cursor=${page.next_cursor ?? ''}`);
    expect(rest.bundles.map((bundle) => bundle.pending_id)).toEqual([second]);
    await h.respond(first, { rejected: true });
    expect((await list('member')).bundles.map((bundle) => bundle.pending_id)).toEqual([second]);
  });

  it('refuses an agent principal before any read: it neither answers nor cancels', async () => {
    const { pendingId, call } = await askLive();
    const agent = { principal: h.principals.agent, surface: 'mcp' } as const;
    const reads = h.observer.phases.length;
    expect(await h.service.respond(agent, pendingId, ANSWERS)).toEqual({
      ok: false,
      code: 'person_required',
    });
    expect(await h.service.cancel(agent, pendingId)).toEqual({
      ok: false,
      code: 'person_required',
    });
    // No identity phase ran: the refusal reveals nothing about the pending ID.
    expect(h.observer.phases.length).toBe(reads);
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
    ]);
    expect(h.waiters.pendingIdsOf(h.seeded.session.id)).toEqual([pendingId]);
    await h.respond(pendingId, { rejected: true });
    await call;
  });

  it('tells a caller that went away from its own budget: no claim, no timeout counted', async () => {
    const pendingId = await askDetached();
    const gone = new AbortController();
    gone.abort();
    const result = await h.service.respond(
      { principal: h.principals.member, surface: 'rest' },
      pendingId,
      ANSWERS,
      gone.signal,
    );
    expect(result).toEqual({ ok: false, code: 'caller_gone' });
    expect(h.observer.timeouts).toEqual([]);
    expect((await h.rows(pendingId)).map((row) => row.metadata.status)).toEqual([
      'pending',
      'pending',
    ]);
  });

  it('finishes delivery for a caller that leaves after the claim', async () => {
    const pendingId = await askDetached();
    const leaving = new AbortController();
    h.runtime.behaviour = 'gated';
    const pending = h.service.respond(
      { principal: h.principals.member, surface: 'rest' },
      pendingId,
      ANSWERS,
      leaving.signal,
    );
    await eventually(() => h.runtime.prompts.length === 1);
    leaving.abort();
    h.runtime.accept();
    // The server owns delivery: the caller leaving neither cancels nor undoes it.
    expect(await pending).toMatchObject({ ok: true, claimed: true, status: 'answered' });
    const rows = await h.rows(pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
    expect(rows.every((row) => row.metadata.response_delivery_pending === undefined)).toBe(true);
  });

  it('answers GET with the bundle and its state', async () => {
    const pendingId = await askDetached();
    const view = await h.app.request(`/api/v1/clarification/${pendingId}`, {
      headers: { 'x-test-principal': 'member' },
    });
    expect(view.status).toBe(200);
    expect(await view.json()).toMatchObject({
      pending_id: pendingId,
      status: 'pending',
      active: true,
      detached: true,
      context: 'Setting up the parser',
      questions: [
        {
          id: 'q1',
          status: 'pending',
          options: [{ option_id: 'q1_opt1', label: 'Hand-written' }, {}],
        },
        { id: 'q2', multi_select: true },
      ],
      response: null,
    });
  });
});
