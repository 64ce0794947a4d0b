/**
 * A form request end to end without the ACP side: `formRequester` (what the
 * ACP host calls for a form elicitation) raises it in the real registry over
 * a real store, and a person answers over REST. Both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formRequester, type AgentFormResult } from '../../src/turns/index.js';
import { formSchema, type FormSchema, type FormView } from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

const schema: FormSchema = formSchema.parse({
  title: 'Deploy settings',
  properties: {
    env: { type: 'string', title: 'Environment', enum: ['dev', 'prod'] },
    replicas: { type: 'integer', minimum: 1, maximum: 5 },
    notify: { type: 'boolean' },
  },
  required: ['env', 'replicas'],
});

const FORM_DEADLINE_MS = 400;

describe.each(DRIVERS)('form requests on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver, { userInputDeadlines: { formMs: FORM_DEADLINE_MS } });
    const body = await h.createTask('first');
    sessionId = body.session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Raises a form as the ACP host would; resolves with the request's ID and the agent's answer. */
  async function raiseForm(options: { turnId?: string; signal?: AbortSignal } = {}) {
    const requestForm = formRequester({ store: h.store }, () => h.turns.userInputs);
    const answer: Promise<AgentFormResult> = requestForm({
      sessionId,
      turnId: options.turnId,
      message: 'Where should this go?\nPick carefully.',
      schema,
      signal: options.signal ?? new AbortController().signal,
    });
    let view: FormView | undefined;
    await eventually(() => {
      const found = h.turns.userInputs.snapshot().find((entry) => entry.session_id === sessionId);
      view = found?.kind === 'form' ? found : undefined;
      return view !== undefined;
    });
    return { id: (view as FormView).id, answer };
  }

  const respond = (id: string, body: unknown, as?: string) =>
    h.request('POST', `/api/v1/user-inputs/${id}/respond`, body, as);

  it('lists the form with its schema, and hands accepted content to the agent', async () => {
    const { id, answer } = await raiseForm();
    const listed = (await (await h.request('GET', '/api/v1/user-inputs')).json()) as {
      requests: FormView[];
    };
    expect(listed.requests).toEqual([
      expect.objectContaining({
        id,
        kind: 'form',
        status: 'awaiting',
        title: 'Deploy settings',
        message: 'Where should this go?\nPick carefully.',
        schema,
        decision: null,
        content: null,
      }),
    ]);
    const content = { env: 'prod', replicas: 2, notify: true };
    const reply = await respond(id, { decision: 'accept', content });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { request: FormView }).request).toMatchObject({
      status: 'settled',
      settled_reason: 'human',
      decision: 'accept',
      content,
      responded_by: { surface: 'rest' },
    });
    expect(await answer).toEqual({ action: 'accept', content });
    // Published behind the decision row, so a moment later.
    await eventually(() => h.events.events.some((entry) => entry.type === 'user_input.settled'));
    const event = h.events.events.findLast((entry) => entry.type === 'user_input.settled');
    expect(event).toMatchObject({ session_id: sessionId, request: { id, decision: 'accept' } });
  });

  it('refuses content its schema does not allow with 400 per field, and changes nothing', async () => {
    const { id, answer } = await raiseForm();
    const before = h.turns.userInputs.get(id);
    const reply = await respond(id, {
      decision: 'accept',
      content: { env: 'staging', replicas: 9, extra: 'x' },
    });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({
      error: 'the form content does not fit its schema',
      code: 'invalid_form_content',
      details: [
        { path: 'content.env', message: 'is not one of the choices' },
        { path: 'content.replicas', message: 'must be at most 5' },
        { path: 'content.extra', message: 'is not a field of this form' },
      ],
    });
    for (const body of [
      { decision: 'done' },
      { option_id: 'allow' },
      { decision: 'decline', content: { env: 'dev' } },
      { decision: 'accept', content: 'dev' },
    ]) {
      expect((await respond(id, body)).status).toBe(400);
    }
    expect(h.turns.userInputs.get(id)).toEqual(before);
    const settled = h.events.events.filter((entry) => entry.type === 'user_input.settled');
    expect(settled).toEqual([]);
    // Still answerable, and the agent still waits for it.
    expect(
      (await respond(id, { decision: 'accept', content: { env: 'dev', replicas: 1 } })).status,
    ).toBe(200);
    expect(await answer).toEqual({ action: 'accept', content: { env: 'dev', replicas: 1 } });
  });

  it('refuses an agent principal: only a person answers a form', async () => {
    const { id } = await raiseForm();
    const reply = await respond(id, { decision: 'decline' }, 'agent');
    expect(reply.status).toBe(403);
    expect(h.turns.userInputs.get(id)).toMatchObject({ status: 'awaiting' });
  });

  it('tells the agent a person declined, and records who did in the transcript', async () => {
    const { id, answer } = await raiseForm();
    expect((await respond(id, { decision: 'decline' })).status).toBe(200);
    expect(await answer).toEqual({ action: 'decline' });
    expect((await respond(id, { decision: 'decline' })).status).toBe(409);
    await eventually(async () => {
      const page = (await (
        await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
      ).json()) as { messages: { content: string }[] };
      return page.messages.some((m) => m.content.endsWith('declined the form "Deploy settings"'));
    });
  });

  it('a NUL in an agent’s form text is dropped: a person’s answer is kept in the transcript', async () => {
    const requestForm = formRequester({ store: h.store }, () => h.turns.userInputs);
    const answer = requestForm({
      sessionId,
      turnId: undefined,
      message: 'Deploy\u0000 settings\nPick carefully.',
      schema: formSchema.parse({
        properties: { env: { type: 'string', title: 'Env\u0000ironment', enum: ['dev', 'prod'] } },
      }),
      signal: new AbortController().signal,
    });
    let view: FormView | undefined;
    await eventually(() => {
      const found = h.turns.userInputs.snapshot().find((entry) => entry.session_id === sessionId);
      view = found?.kind === 'form' ? found : undefined;
      return view !== undefined;
    });
    expect(view?.title).toBe('Deploy settings');
    const reply = await respond(view?.id ?? '', { decision: 'accept', content: { env: 'prod' } });
    expect(reply.status).toBe(200);
    expect(await answer).toEqual({ action: 'accept', content: { env: 'prod' } });
    await eventually(async () => {
      const page = (await (
        await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
      ).json()) as { messages: { content: string }[] };
      return page.messages.some((m) => m.content.endsWith('sent the form "Deploy settings"'));
    });
  });

  it('puts a sent and a declined form in the decision log, without their content, a full page at a time', async () => {
    interface Log {
      decisions: {
        kind: string;
        subject: string;
        outcome: string;
        detail: string;
        responded_by: { surface: string };
      }[];
      next_cursor: string | null;
    }
    const log = async (query: string) => {
      const reply = await h.request('GET', `/api/v1/decisions?${query}`);
      expect(reply.status).toBe(200);
      return (await reply.json()) as Log;
    };
    const sent = await raiseForm();
    expect(
      (await respond(sent.id, { decision: 'accept', content: { env: 'prod', replicas: 4 } }))
        .status,
    ).toBe(200);
    await sent.answer;
    const declined = await raiseForm();
    expect((await respond(declined.id, { decision: 'decline' })).status).toBe(200);
    await declined.answer;

    const all = await log('limit=50');
    expect(all.next_cursor).toBeNull();
    expect(all.decisions).toMatchObject([
      {
        kind: 'form',
        subject: 'Deploy settings',
        outcome: 'declined',
        detail: '',
        responded_by: { surface: 'rest' },
      },
      { kind: 'form', subject: 'Deploy settings', outcome: 'sent', detail: '' },
    ]);
    expect(all.decisions).toHaveLength(2);
    // What the person typed went to the agent; the log keeps only what the transcript does.
    expect(JSON.stringify(all)).not.toContain('prod');
    expect((await log('kind=form')).decisions.map((entry) => entry.outcome)).toEqual([
      'declined',
      'sent',
    ]);
    expect((await log('kind=consent')).decisions).toEqual([]);

    // Every page is full while more match: rows are chosen in SQL, not dropped after paging.
    const first = await log('limit=1');
    expect(first.decisions.map((entry) => entry.outcome)).toEqual(['declined']);
    expect(first.next_cursor).not.toBeNull();
    const second = await log(`limit=1&cursor=${first.next_cursor ?? ''}`);
    expect(second.decisions.map((entry) => entry.outcome)).toEqual(['sent']);
    expect(second.next_cursor).toBeNull();
  });

  it('cancels when the agent call is aborted', async () => {
    const controller = new AbortController();
    const { id, answer } = await raiseForm({ signal: controller.signal });
    controller.abort();
    expect(await answer).toEqual({ action: 'cancel' });
    expect(h.turns.userInputs.get(id)).toMatchObject({
      status: 'settled',
      settled_reason: 'swept',
    });
    expect((await respond(id, { decision: 'decline' })).status).toBe(409);
  });

  it('cancels at its deadline', async () => {
    const { id, answer } = await raiseForm();
    expect(await answer).toEqual({ action: 'cancel' });
    expect(h.turns.userInputs.get(id)).toMatchObject({ settled_reason: 'timed_out' });
  });

  it('settles when its session is deleted, once the rows are gone', async () => {
    const { id, answer } = await raiseForm({ turnId: 'turn-1' });
    expect((await h.request('DELETE', `/api/v1/sessions/${sessionId}`)).status).toBe(200);
    expect(await answer).toEqual({ action: 'cancel' });
    expect(h.turns.userInputs.get(id)).toMatchObject({ settled_reason: 'swept' });
  });

  it('says the session waits for a form while it is open', async () => {
    h.host.endTurn(sessionId);
    await h.pump.idle();
    const { id } = await raiseForm();
    expect(await h.sessions.pendingAction(sessionId)).toBe('form');
    await respond(id, { decision: 'decline' });
    expect(await h.sessions.pendingAction(sessionId)).toBe(null);
  });

  it('cancels at once for a session that does not exist', async () => {
    const requestForm = formRequester({ store: h.store }, () => h.turns.userInputs);
    const answer = await requestForm({
      sessionId: 'no-such-session',
      turnId: undefined,
      message: 'x',
      schema,
      signal: new AbortController().signal,
    });
    expect(answer).toEqual({ action: 'cancel' });
  });
});
