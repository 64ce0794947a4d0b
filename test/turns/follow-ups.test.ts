/**
 * Follow-ups as machine-owned queue items (DESIGN §7), with agents played by
 * the test so the busy windows are exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { currentTurn, getTurn } from '../../src/store/index.js';
import { endOrphanedUserInputs } from '../../src/turns/ended-user-inputs.js';
import { followUpAdmitter } from '../../src/turns/user-input-bridge.js';
import { USER_INPUT_DECISION_UNCONFIRMED_TYPE } from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('follow-ups on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let taskId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    const body = await h.createTask('first');
    sessionId = body.session.id;
    taskId = body.task.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function userMessages(): Promise<string[]> {
    const page = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
    ).json()) as { messages: { author: string; content: string }[] };
    return page.messages.filter((m) => m.author === 'user').map((m) => m.content);
  }

  /** An action answered Done while the session is busy with another turn: a queued follow-up. */
  async function queuedFollowUp(): Promise<string> {
    const created = h.turns.userInputs.request({
      kind: 'action',
      sessionId,
      taskId,
      title: 'Connect the database',
      instructions: 'Open the console and add the key.',
    });
    if (!created.ok) throw new Error('request refused');
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'meanwhile, lint',
      admission_key: 'k-lint',
    });
    const answered = await h.request('POST', `/api/v1/user-inputs/${created.id}/respond`, {
      decision: 'done',
    });
    expect(answered.status).toBe(200);
    await h.turns.userInputs.drain();
    return created.id;
  }

  it('says the session waits for an action in its own events while the request is open', async () => {
    const created = h.turns.userInputs.request({
      kind: 'action',
      sessionId,
      taskId,
      title: 'Sign in to the registry',
      instructions: 'Run npm login.',
    });
    if (!created.ok) throw new Error('request refused');
    h.host.endTurn(sessionId);
    await h.pump.idle();
    const stateChange = h.events.events.findLast(
      (event) => event.type === 'session.state_changed' && event.session_id === sessionId,
    );
    expect(stateChange).toMatchObject({ state: 'idle', pending_action: 'action' });

    await h.request('POST', `/api/v1/user-inputs/${created.id}/respond`, { decision: 'skip' });
    await h.turns.userInputs.drain();
    await h.pump.idle();
    const later = h.events.events.findLast(
      (event) => event.type === 'message.added' && event.session_id === sessionId,
    );
    expect(later).toMatchObject({ pending_action: null });
  });

  it('says a queue change at the session revision after every earlier session event', async () => {
    await queuedFollowUp();
    // The publisher's chain runs behind the registry: wait for its queue change.
    await eventually(() =>
      h.events.events.some((e) => e.type === 'queue.changed' && e.session_id === sessionId),
    );
    // The documented rule: keep the highest session revision seen, drop anything older
    // (a user-input event carries its request's own revision, so it is left out).
    let highest = -1;
    const dropped: number[] = [];
    for (const event of h.events.events) {
      if (event.session_id !== sessionId || event.type.startsWith('user_input.')) continue;
      if (event.type === 'queue.changed' && event.revision < highest) dropped.push(event.revision);
      highest = Math.max(highest, event.revision);
    }
    expect(dropped).toEqual([]);
  });

  it('lists a due follow-up in the queue as a machine item, and sends it when the turn ends', async () => {
    const requestId = await queuedFollowUp();
    const queue = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/queue`)
    ).json()) as {
      items: { id: string; owner: string; editable: boolean; text: string }[];
    };
    expect(queue.items).toEqual([
      expect.objectContaining({ id: requestId, owner: 'machine', editable: false }),
    ]);
    const edit = await h.request('PATCH', `/api/v1/sessions/${sessionId}/queue/${requestId}`, {
      text: 'changed',
      base_text: queue.items[0]?.text,
    });
    expect(edit.status).toBe(404);

    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.turns.userInputs.drain();
    await eventually(async () =>
      (await userMessages()).some((text) => text.startsWith('Continue.')),
    );
    expect(h.turns.userInputs.get(requestId)).toMatchObject({
      status: 'settled',
      settled_reason: 'dispatched',
    });
    expect((await userMessages()).filter((text) => text.startsWith('Continue.'))).toHaveLength(1);
  });

  it('records the person who answered as the follow-up’s sender, like any message of theirs', async () => {
    const requestId = await queuedFollowUp();
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.turns.userInputs.drain();
    let sent: { metadata: Record<string, unknown> } | undefined;
    await eventually(async () => {
      const page = (await (
        await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
      ).json()) as {
        messages: { author: string; content: string; metadata: Record<string, unknown> }[];
      };
      sent = page.messages.find((m) => m.author === 'user' && m.content.startsWith('Continue.'));
      return sent !== undefined;
    });
    expect(sent?.metadata).toEqual({ user_id: h.memberId, user_input_request_id: requestId });
  });

  it('removes a queued follow-up: it never starts and its owner is rejected', async () => {
    const requestId = await queuedFollowUp();
    const removed = await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue/${requestId}`);
    expect(removed.status).toBe(200);
    expect(h.turns.userInputs.get(requestId)).toMatchObject({ settled_reason: 'rejected' });
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.turns.userInputs.drain();
    expect((await userMessages()).some((text) => text.startsWith('Continue.'))).toBe(false);
  });

  it('settles a due follow-up with its session’s delete; nothing is sent afterwards', async () => {
    const requestId = await queuedFollowUp();
    expect((await h.request('DELETE', `/api/v1/sessions/${sessionId}`)).status).toBe(200);
    expect(h.turns.userInputs.get(requestId)).toMatchObject({ settled_reason: 'swept' });
    await h.pump.idle();
    await h.turns.userInputs.drain();
    const left = await h.store.db
      .selectFrom('task_session_messages')
      .select('id')
      .where('task_session_id', '=', sessionId)
      .execute();
    expect(left).toEqual([]);
  });

  it('keeps a follow-up through its agent’s failure: once the session is restarted, it is sent', async () => {
    const created = h.turns.userInputs.request({
      kind: 'action',
      sessionId,
      taskId,
      title: 'Connect the database',
      instructions: 'Open the console and add the key.',
    });
    if (!created.ok) throw new Error('request refused');
    h.host.endTurn(sessionId);
    await h.pump.idle();
    // The idle agent dies before the person is done: the session fails, a restart may bring it back.
    h.host.exit(sessionId);
    await h.settled();
    const failed = await h.store.db
      .selectFrom('task_sessions')
      .select('state')
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    expect(failed.state).toBe('failed');

    const answered = await h.request('POST', `/api/v1/user-inputs/${created.id}/respond`, {
      decision: 'done',
    });
    expect(answered.status).toBe(200);
    await h.turns.userInputs.drain();
    // The person's Done is still owed: listed in the queue, removable, never dropped.
    expect(h.turns.userInputs.get(created.id)).toMatchObject({ status: 'due', queued: true });

    expect((await h.request('POST', `/api/v1/sessions/${sessionId}/restart`)).status).toBe(200);
    await h.settled();
    await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'go on',
      admission_key: 'k-go-on',
    });
    await h.settled();
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.turns.userInputs.drain();
    await eventually(async () =>
      (await userMessages()).some((text) => text.startsWith('Continue.')),
    );
    expect(h.turns.userInputs.get(created.id)).toMatchObject({ settled_reason: 'dispatched' });
  });

  it('keeps an owed Done for recovery past the end of the turn it was made in', async () => {
    const requestId = await queuedFollowUp();
    // The busy turn's agent dies, and the agent to take the follow-up is slow to start.
    const release = h.host.holdStarts();
    try {
      const busy = await currentTurn(h.store, sessionId);
      h.host.exit(sessionId);
      // Its turn's end is written (the agent's own reports wait behind the held start).
      await eventually(async () => (await getTurn(h.store, busy?.id ?? ''))?.completed_at != null);
      expect(h.turns.userInputs.get(requestId)).toMatchObject({ status: 'due' });
      // The server restarts now: the agent never heard the Done, and the transcript says it may not have.
      const recovered = await endOrphanedUserInputs(
        { store: h.store, sessions: h.sessions, logger: silentLogger },
        { kind: 'all' },
        'restart',
      );
      expect(recovered).toBe(1);
      const notes = await h.store.db
        .selectFrom('task_session_messages')
        .select('metadata')
        .where('task_session_id', '=', sessionId)
        .where('type', '=', USER_INPUT_DECISION_UNCONFIRMED_TYPE)
        .execute();
      expect(notes.map((note) => JSON.parse(note.metadata) as unknown)).toEqual([
        expect.objectContaining({ request_id: requestId, kind: 'action', loss: 'restart' }),
      ]);
    } finally {
      release();
    }
  });

  it('drops a follow-up only for a session its person left: deleted, or removed from it', async () => {
    h.host.endTurn(sessionId);
    await h.pump.idle();
    const admit = followUpAdmitter(() => h.turns);
    const author = { user_id: h.memberId, name: 'member', surface: 'web' as const };
    const input = { sessionId, requestId: 'request-owner', text: 'Continue.', author };
    for (const code of ['owner_deleted', 'owner_removed']) {
      await h.store.db
        .updateTable('task_sessions')
        .set({
          state: 'failed',
          failure_code: code,
          failure_message: 'gone',
          failed_at: h.store.clock.timestamp(),
        })
        .where('id', '=', sessionId)
        .execute();
      expect(await admit(input)).toBe('refused');
    }
    await h.store.db
      .updateTable('task_sessions')
      .set({ failure_code: 'exited' })
      .where('id', '=', sessionId)
      .execute();
    expect(await admit(input)).toBe('busy');
  });

  it('admits the same follow-up from two paths at once as one message', async () => {
    h.host.endTurn(sessionId);
    await h.pump.idle();
    const admit = followUpAdmitter(() => h.turns);
    const input = {
      sessionId,
      requestId: 'request-twice',
      text: 'Continue. I have completed: x',
      author: { user_id: h.memberId, name: 'member', surface: 'web' as const },
    };
    const outcomes = await Promise.all([admit(input), admit(input)]);
    expect(outcomes).toEqual(['accepted', 'accepted']);
    expect((await userMessages()).filter((text) => text.startsWith('Continue.'))).toHaveLength(1);
    expect(h.host.prompts.filter((prompt) => prompt.text.startsWith('Continue.'))).toHaveLength(1);
  });
});
