/**
 * The decision log outlives what it records: deleting a session or a whole
 * task takes its transcript, but every decision made in it stays in
 * `GET /api/v1/decisions`, as it was (who, where, when, what), marked
 * `session_deleted`, readable by the workspace's members only, and found by
 * the same filters and pages as the rest. On both dialects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const TOKEN = 'decisions-outlive-deletion-admin-token';

interface Entry {
  message_id: string;
  session_id: string;
  task_id: string;
  task_title: string;
  session_deleted: boolean;
  kind: string;
  outcome: string;
  responded_by: { user_id: string; name: string; surface: string };
  decided_at: string;
}

interface Log {
  decisions: Entry[];
  next_cursor: string | null;
}

describe.each(DRIVERS)('decisions of a deleted session or task, on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let bob: ApiCall;
  let carol: ApiCall;
  let bobId: string;
  const made = {
    question: { taskId: '', sessionId: '' },
    consent: { taskId: '', sessionId: '' },
    bobs: { taskId: '', sessionId: '' },
  };
  let before: Entry[] = [];

  async function logOf(as: ApiCall, query = ''): Promise<Entry[]> {
    const reply = await as<Log>('GET', `/api/v1/decisions?limit=200${query}`);
    expect(reply.status).toBe(200);
    return reply.json.decisions;
  }

  async function person(name: string): Promise<{ id: string; api: ApiCall }> {
    const created = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name,
    });
    expect(created.status).toBe(201);
    return { id: created.json.user.id, api: bearerApi(running.server.url, created.json.token) };
  }

  beforeAll(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = running.api;
    const { startTask, pendingOf, userInputOf } = waitingItems(admin);
    const spaces = await admin<{ workspaces: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/workspaces',
    );
    const space = spaces.json.workspaces.find((workspace) => workspace.name === 'Default');
    ({ id: bobId, api: bob } = await person('bob'));
    expect(
      (await admin('POST', `/api/v1/workspaces/${space?.id ?? ''}/members`, { user_id: bobId }))
        .status,
    ).toBe(201);
    // Carol is in no workspace of these tasks.
    ({ api: carol } = await person('carol'));

    made.question = await startTask('/ask');
    const bundle = await pendingOf(made.question.sessionId);
    const answered = await admin('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [
        {
          question_id: bundle.questions[0]?.question_id ?? '',
          selected_options: [bundle.questions[0]?.options[0]?.option_id ?? ''],
        },
      ],
    });
    expect(answered.status).toBe(200);

    made.consent = await startTask('/permission');
    const request = await userInputOf(made.consent.sessionId);
    const allowed = await admin('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(allowed.status).toBe(200);

    made.bobs = await startTask('/ask');
    const bobsBundle = await pendingOf(made.bobs.sessionId);
    const skipped = await bob('POST', `/api/v1/clarification/${bobsBundle.pending_id}/respond`, {
      rejected: true,
      reject_reason: 'later',
    });
    expect(skipped.status).toBe(200);
    await eventually(async () => (await logOf(admin)).length === 3);
    before = await logOf(admin);

    expect((await admin('DELETE', `/api/v1/sessions/${made.question.sessionId}`)).status).toBe(200);
    expect((await admin('DELETE', `/api/v1/tasks/${made.consent.taskId}`)).status).toBe(200);
  });

  afterAll(async () => {
    await running.dispose();
  });

  it('keeps each decision as it was, marked as from a deleted session', async () => {
    expect(before.map((entry) => entry.session_deleted)).toEqual([false, false, false]);
    const after = await logOf(admin);
    const deleted = new Set([made.question.sessionId, made.consent.sessionId]);
    expect(after).toEqual(
      before.map((entry) => ({ ...entry, session_deleted: deleted.has(entry.session_id) })),
    );
    expect(after.map((entry) => [entry.kind, entry.outcome, entry.responded_by.name])).toEqual([
      ['question', 'skipped', 'bob'],
      ['consent', 'allowed', 'admin'],
      ['question', 'answered', 'admin'],
    ]);
    // The transcript itself is gone.
    const transcript = await admin('GET', `/api/v1/sessions/${made.question.sessionId}/messages`);
    expect(transcript.status).toBe(404);
  });

  it('lets the workspace’s members read them, and nobody else', async () => {
    expect((await logOf(bob)).map((entry) => entry.message_id)).toEqual(
      before.map((entry) => entry.message_id),
    );
    expect(await logOf(carol)).toEqual([]);
    expect(await logOf(carol, `&task_id=${made.consent.taskId}`)).toEqual([]);
  });

  it('finds them by task, kind, person and time, and pages over both kinds of row', async () => {
    const ids = (entries: Entry[]) => entries.map((entry) => entry.task_id);
    expect(ids(await logOf(admin, `&task_id=${made.consent.taskId}`))).toEqual([
      made.consent.taskId,
    ]);
    expect(ids(await logOf(admin, '&kind=consent'))).toEqual([made.consent.taskId]);
    expect(ids(await logOf(admin, '&kind=question'))).toEqual([
      made.bobs.taskId,
      made.question.taskId,
    ]);
    expect(ids(await logOf(admin, `&user_id=${bobId}`))).toEqual([made.bobs.taskId]);
    const oldest = before.at(-1)?.decided_at ?? '';
    expect(ids(await logOf(admin, `&until=${encodeURIComponent(oldest)}`))).toEqual([]);

    const paged: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { json: Log } = await admin<Log>(
        'GET',
        `/api/v1/decisions?limit=1${cursor === '' ? '' : `&cursor=${cursor}`}`,
      );
      paged.push(...page.json.decisions.map((entry) => entry.message_id));
      cursor = page.json.next_cursor;
    }
    expect(paged).toEqual(before.map((entry) => entry.message_id));
  });

  it('keeps them once when what holds them is deleted again', async () => {
    expect((await admin('DELETE', `/api/v1/sessions/${made.question.sessionId}`)).status).toBe(404);
    expect((await admin('DELETE', `/api/v1/tasks/${made.consent.taskId}`)).status).toBe(404);
    expect((await admin('DELETE', `/api/v1/tasks/${made.bobs.taskId}`)).status).toBe(200);
    const after = await logOf(admin);
    expect(after.map((entry) => entry.message_id)).toEqual(before.map((entry) => entry.message_id));
    expect(after.every((entry) => entry.session_deleted)).toBe(true);
  });
});
