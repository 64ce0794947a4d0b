/**
 * A queued message waits for the turn before it; by then its author may no
 * longer belong to the session's workspace (removed from it, or deleted).
 * Only someone with standing acts: it is not sent for them, the queue says
 * so (`queue.changed`) and the transcript says why; the messages behind it
 * go on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorkspaceMember,
  deleteUserRow,
  listQueue,
  removeWorkspaceMember,
} from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a queued message whose author left, on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let colleagueId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    sessionId = (await h.createTask('first')).session.id;
    await h.settled();
    // The harness's outsider joins the workspace, so it may queue there.
    colleagueId = h.principals.outsider.userId;
    await addWorkspaceMember(h.store, {
      workspaceId: h.seeded.task.workspace_id,
      userId: colleagueId,
      role: 'member',
    });
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function queue(text: string, as: 'member' | 'outsider'): Promise<void> {
    const sent = await h.request(
      'POST',
      `/api/v1/sessions/${sessionId}/messages`,
      { text, admission_key: text },
      as,
    );
    expect(sent.status).toBe(202);
  }

  async function endTurnAndDrain(): Promise<void> {
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.settled();
  }

  async function notes(): Promise<string[]> {
    const rows = await h.store.db
      .selectFrom('task_session_messages')
      .select(['content', 'author_type'])
      .where('task_session_id', '=', sessionId)
      .where('author_type', '=', 'system')
      .execute();
    return rows.map((row) => row.content);
  }

  for (const leaving of ['removed', 'deleted'] as const) {
    it(`is not sent once its author was ${leaving}; the queue goes on`, async () => {
      await queue('from the colleague', 'outsider');
      await queue('from the member', 'member');
      if (leaving === 'removed') {
        expect(await removeWorkspaceMember(h.store, h.seeded.task.workspace_id, colleagueId)).toBe(
          true,
        );
      } else {
        expect(await deleteUserRow(h.store, colleagueId)).toBe(true);
      }
      const before = h.events.events.length;

      await endTurnAndDrain();

      expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'from the member']);
      expect(await listQueue(h.store, sessionId)).toEqual([]);
      expect(await notes()).toContain(
        'A queued message was not sent: the person who queued it no longer belongs to this workspace.',
      );
      const changes = h.events.events
        .slice(before)
        .filter((event) => event.session_id === sessionId && event.type === 'queue.changed');
      expect(changes.length).toBeGreaterThan(0);
    });
  }

  it('sends nothing when the queue holds only such messages', async () => {
    await queue('from the colleague', 'outsider');
    await removeWorkspaceMember(h.store, h.seeded.task.workspace_id, colleagueId);
    await endTurnAndDrain();
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first']);
    expect(await listQueue(h.store, sessionId)).toEqual([]);
  });
});

describe.each(DRIVERS)('a follow-up whose person left, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('is not sent for a person removed from the workspace after they answered', async () => {
    const { session, task } = await h.createTask('first');
    await h.settled();
    const created = h.turns.userInputs.request({
      kind: 'action',
      sessionId: session.id,
      taskId: task.id,
      title: 'Connect the database',
      instructions: 'Open the console and add the key.',
    });
    if (!created.ok) throw new Error('request refused');
    h.host.endTurn(session.id);
    await h.pump.idle();
    // A colleague's message keeps the session busy, so the member's Done waits as a follow-up.
    const colleagueId = h.principals.outsider.userId;
    await addWorkspaceMember(h.store, {
      workspaceId: h.seeded.task.workspace_id,
      userId: colleagueId,
      role: 'member',
    });
    const busy = await h.request(
      'POST',
      `/api/v1/sessions/${session.id}/messages`,
      { text: 'meanwhile, lint', admission_key: 'k-lint' },
      'outsider',
    );
    expect(busy.status).toBeLessThan(300);
    await h.settled();
    const answered = await h.request('POST', `/api/v1/user-inputs/${created.id}/respond`, {
      decision: 'done',
    });
    expect(answered.status).toBe(200);
    await h.turns.userInputs.drain();
    expect(await removeWorkspaceMember(h.store, h.seeded.task.workspace_id, h.memberId)).toBe(true);

    h.host.endTurn(session.id);
    await h.pump.idle();
    await h.turns.userInputs.drain();
    await h.settled();

    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'meanwhile, lint']);
    expect(h.turns.userInputs.get(created.id)).toMatchObject({
      status: 'settled',
      settled_reason: 'rejected',
    });
    const said = await h.store.db
      .selectFrom('task_session_messages')
      .select('content')
      .where('task_session_id', '=', session.id)
      .where('author_type', '=', 'system')
      .execute();
    expect(said.map((row) => row.content)).toContain(
      'A queued message was not sent: the person who queued it no longer belongs to this workspace.',
    );
  });
});
