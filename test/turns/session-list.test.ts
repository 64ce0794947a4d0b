/**
 * `GET /api/v1/tasks/:id/sessions` on both dialects: each session carries the
 * `pending_action` a session write would compute (a clarification first, then
 * the registry's consent or action), so a client that reconnects corrects
 * what it held before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, listSessionsReadingClarification } from '../../src/store/index.js';
import { consentHandler } from '../../src/turns/user-input-bridge.js';
import type { SessionView } from '../../src/wire/index.js';
import { eventually, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { permissionRequest } from '../support/user-input-fixtures.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('the session list’s pending_action on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function listed(taskId: string): Promise<SessionView[]> {
    const response = await h.request('GET', `/api/v1/tasks/${taskId}/sessions`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { sessions: SessionView[] }).sessions;
  }

  it('says what each session waits on, as its writes would', async () => {
    const created = await h.createTask('first');
    const { task, session } = created;
    expect((created.session as Partial<SessionView>).pending_action).toBeNull();
    expect((await listed(task.id)).map((view) => [view.id, view.pending_action])).toEqual([
      [session.id, null],
    ]);

    const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    const [waiting] = await listed(task.id);
    expect(waiting?.pending_action).toBe('clarification');
    expect(waiting?.pending_action).toBe(await h.sessions.pendingAction(session.id));
    const answer = await h.respond(asked.pendingId, { rejected: true });
    expect(answer.status).toBe(200);
    await h.settled();
    expect((await listed(task.id))[0]?.pending_action).toBeNull();

    const other = await h.createTask('second');
    const ask = consentHandler({ store: h.store }, () => h.turns.userInputs);
    const controller = new AbortController();
    void ask(other.session.id, permissionRequest(other.session.id, 'rm -rf .cache'), {
      turnId: undefined,
      signal: controller.signal,
      ended: new AbortController().signal,
    }).catch(() => undefined);
    await eventually(() => h.turns.userInputs.pendingActionOf(other.session.id) === 'consent');
    expect((await listed(other.task.id))[0]?.pending_action).toBe('consent');
    // Another task's wait is not this one's.
    expect((await listed(task.id))[0]?.pending_action).toBeNull();
    controller.abort();
  });

  it('reads the clarification of every session of a task in the list’s own statement', async () => {
    const { task, session } = await h.createTask('first');
    const asked = await h.service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    const later = await createSession(h.store, { taskId: task.id, agentProfile: 'demo' });
    const rows = await listSessionsReadingClarification(h.store, task.id);
    expect(rows.map((row) => [row.session.id, row.activeClarification])).toEqual([
      [session.id, true],
      [later.id, false],
    ]);
    expect((await listed(task.id)).map((view) => view.pending_action)).toEqual([
      'clarification',
      null,
    ]);
  });
});
