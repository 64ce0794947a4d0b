/**
 * A queued message is sent in the name of whoever wrote its text. A
 * colleague who edits someone else's queued message wrote what is sent, so
 * the transcript names them, never the person who queued the words they
 * replaced (and whose standing, not the editor's, would otherwise decide
 * whether it is sent at all). On both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorkspaceMember, listQueue } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)("a colleague's edit of a queued message on %s", (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('is sent as the editor’s message, not as the words of the person who queued it', async () => {
    const { session } = await h.createTask('first');
    await h.settled();
    const editorId = h.principals.outsider.userId;
    await addWorkspaceMember(h.store, {
      workspaceId: h.seeded.task.workspace_id,
      userId: editorId,
      role: 'member',
    });
    const queued = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'ship it',
      admission_key: 'k-ship',
    });
    expect(queued.status).toBe(202);
    const itemId = ((await queued.json()) as { item: { id: string } }).item.id;
    const edited = await h.request(
      'PATCH',
      `/api/v1/sessions/${session.id}/queue/${itemId}`,
      { text: 'ship it to production', base_text: 'ship it' },
      'outsider',
    );
    expect(edited.status).toBe(200);
    expect((await listQueue(h.store, session.id)).map((item) => item.created_by)).toEqual([
      editorId,
    ]);

    h.host.endTurn(session.id);
    await h.pump.idle();
    await h.settled();

    const sent = await h.store.db
      .selectFrom('task_session_messages')
      .select('metadata')
      .where('task_session_id', '=', session.id)
      .where('content', '=', 'ship it to production')
      .executeTakeFirstOrThrow();
    const metadata = (
      typeof sent.metadata === 'string' ? JSON.parse(sent.metadata) : sent.metadata
    ) as Record<string, unknown>;
    expect(metadata.user_id).toBe(editorId);
  });

  it('keeps the author of a message its own author edits', async () => {
    const { session } = await h.createTask('first');
    await h.settled();
    const queued = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'lint',
      admission_key: 'k-lint',
    });
    const itemId = ((await queued.json()) as { item: { id: string } }).item.id;
    const edited = await h.request('PATCH', `/api/v1/sessions/${session.id}/queue/${itemId}`, {
      text: 'lint and test',
      base_text: 'lint',
    });
    expect(edited.status).toBe(200);
    expect((await listQueue(h.store, session.id)).map((item) => item.created_by)).toEqual([
      h.memberId,
    ]);
  });
});
