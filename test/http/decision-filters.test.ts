/**
 * The decision log's filters (issue 15: "an audit view lists every decision
 * with filters (task, kind, person, time)"): `task_id`, `kind`, `user_id`,
 * `since` and `until` on `GET /api/v1/decisions`, combined, paged, on both
 * dialects; a bad value is a 400 that names the parameter and changes nothing.
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
import { waitingItems, type WaitingItems } from '../support/waiting-items.js';

const TOKEN = 'decision-filters-admin-token';

interface Entry {
  message_id: string;
  task_id: string;
  kind: string;
  outcome: string;
  responded_by: { user_id: string };
  decided_at: string;
}

interface Log {
  decisions: Entry[];
  next_cursor: string | null;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DRIVERS)('decision log filters, on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let startTask: WaitingItems['startTask'];
  let pendingOf: WaitingItems['pendingOf'];
  let userInputOf: WaitingItems['userInputOf'];
  let bob: ApiCall;
  let meId: string;
  let bobId: string;
  const tasks: Record<'question' | 'consent' | 'action' | 'bobs', string> = {
    question: '',
    consent: '',
    action: '',
    bobs: '',
  };
  /** A moment after the first two decisions and before the last two. */
  let middle = '';

  async function log(query = ''): Promise<Entry[]> {
    const reply = await admin<Log>('GET', `/api/v1/decisions?limit=200${query}`);
    expect(reply.status).toBe(200);
    return reply.json.decisions;
  }

  beforeAll(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = running.api;
    ({ startTask, pendingOf, userInputOf } = waitingItems(admin));
    meId = (await admin<{ user: { id: string } }>('GET', '/api/v1/me')).json.user.id;
    const created = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'bob',
    });
    bobId = created.json.user.id;
    bob = bearerApi(running.server.url, created.json.token);
    const spaces = await admin<{ workspaces: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/workspaces',
    );
    const space = spaces.json.workspaces.find((workspace) => workspace.name === 'Default');
    expect(
      (await admin('POST', `/api/v1/workspaces/${space?.id ?? ''}/members`, { user_id: bobId }))
        .status,
    ).toBe(201);

    const question = await startTask('/ask');
    tasks.question = question.taskId;
    const bundle = await pendingOf(question.sessionId);
    const answered = await admin('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [
        {
          question_id: bundle.questions[0]?.question_id ?? '',
          selected_options: [bundle.questions[0]?.options[0]?.option_id ?? ''],
        },
      ],
    });
    expect(answered.status).toBe(200);

    const consent = await startTask('/permission');
    tasks.consent = consent.taskId;
    const request = await userInputOf(consent.sessionId);
    const allowed = await admin('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(allowed.status).toBe(200);
    await eventually(async () => (await log(`&task_id=${tasks.consent}`)).length === 1);

    await pause(30);
    middle = new Date().toISOString();
    await pause(30);

    const action = await startTask('/action');
    tasks.action = action.taskId;
    const step = await userInputOf(action.sessionId);
    const done = await admin('POST', `/api/v1/user-inputs/${step.id}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    // The row is written when the person's answer arms the action, not when it settles.
    await eventually(async () => (await log(`&task_id=${tasks.action}`)).length === 1);

    const bobs = await startTask('/ask');
    tasks.bobs = bobs.taskId;
    const bobsBundle = await pendingOf(bobs.sessionId);
    const skipped = await bob('POST', `/api/v1/clarification/${bobsBundle.pending_id}/respond`, {
      rejected: true,
      reject_reason: 'later',
    });
    expect(skipped.status).toBe(200);
  });
  afterAll(async () => {
    await running.dispose();
  });

  it('narrows by task, kind and person, alone and combined', async () => {
    const all = await log();
    expect(all.map((entry) => entry.task_id)).toEqual([
      tasks.bobs,
      tasks.action,
      tasks.consent,
      tasks.question,
    ]);

    expect((await log(`&task_id=${tasks.consent}`)).map((entry) => entry.kind)).toEqual([
      'consent',
    ]);
    expect((await log('&kind=question')).map((entry) => entry.task_id)).toEqual([
      tasks.bobs,
      tasks.question,
    ]);
    expect((await log('&kind=consent')).map((entry) => entry.outcome)).toEqual(['allowed']);
    expect((await log('&kind=action')).map((entry) => entry.outcome)).toEqual(['done']);
    expect((await log(`&user_id=${bobId}`)).map((entry) => entry.task_id)).toEqual([tasks.bobs]);
    expect((await log(`&user_id=${meId}`)).map((entry) => entry.task_id)).toEqual([
      tasks.action,
      tasks.consent,
      tasks.question,
    ]);
    expect((await log(`&kind=question&user_id=${meId}`)).map((entry) => entry.task_id)).toEqual([
      tasks.question,
    ]);
    expect(await log(`&kind=consent&task_id=${tasks.question}`)).toEqual([]);
    expect(await log('&task_id=no-such-task')).toEqual([]);
  });

  it('narrows by time: since is inclusive, until exclusive, any RFC 3339 offset', async () => {
    const all = await log();
    expect((await log(`&since=${middle}`)).map((entry) => entry.task_id)).toEqual([
      tasks.bobs,
      tasks.action,
    ]);
    expect((await log(`&until=${middle}`)).map((entry) => entry.task_id)).toEqual([
      tasks.consent,
      tasks.question,
    ]);
    // The same instant written with an offset selects the same rows.
    const shifted = new Date(Date.parse(middle) + 2 * 3_600_000).toISOString().slice(0, 23);
    expect(
      (await log(`&since=${encodeURIComponent(`${shifted}+02:00`)}`)).map((entry) => entry.task_id),
    ).toEqual([tasks.bobs, tasks.action]);
    const newest = all[0]?.decided_at ?? '';
    const window = await log(`&since=${middle}&until=${encodeURIComponent(newest)}`);
    expect(window.length).toBeLessThanOrEqual(2);
    expect(window.map((entry) => entry.task_id)).toContain(tasks.action);
  });

  it('pages through a filtered log without gaps or repeats', async () => {
    const first = await admin<Log>('GET', '/api/v1/decisions?limit=1&kind=question');
    expect(first.json.decisions.map((entry) => entry.task_id)).toEqual([tasks.bobs]);
    expect(first.json.next_cursor).not.toBeNull();
    const second = await admin<Log>(
      'GET',
      `/api/v1/decisions?limit=1&kind=question&cursor=${first.json.next_cursor ?? ''}`,
    );
    expect(second.json.decisions.map((entry) => entry.task_id)).toEqual([tasks.question]);
    expect(second.json.next_cursor).toBeNull();
  });

  it('refuses a bad or unknown filter with a 400 that names it, and changes nothing', async () => {
    const before = await log();
    const cases: [string, string][] = [
      // A misspelt filter is refused, never dropped (dropped, it would answer the whole log).
      [`taskid=${tasks.consent}`, 'taskid'],
      [`task_id=${tasks.consent}&kinds=question`, 'kinds'],
      ['limit=5&user=someone', 'user'],
      ['limt=5', 'limt'],
      ['Kind=question', 'Kind'],
      ['%00=x', '\u0000'],
      ['kind=approval', 'kind'],
      ['kind=', 'kind'],
      ['task_id=', 'task_id'],
      [`task_id=${'x'.repeat(200)}`, 'task_id'],
      ['user_id=%00', 'user_id'],
      ['since=yesterday', 'since'],
      ['since=2026-12-01', 'since'],
      ['until=2026-02-30T00:00:00Z', 'until'],
      ['since=2026-12-01T10:00:00Z&until=2026-12-01T09:00:00Z', 'until'],
      ['since=2026-12-01T10:00:00Z&until=2026-12-01T10:00:00Z', 'until'],
      // A key given twice would mean its first value, silently: refused, on every route.
      ['kind=question&kind=consent', 'kind'],
      [`task_id=${tasks.consent}&task_id=${tasks.consent}`, 'task_id'],
      ['limit=1&limit=2', 'limit'],
    ];
    for (const [query, path] of cases) {
      const reply = await admin<{ code: string; details: { path: string }[] }>(
        'GET',
        `/api/v1/decisions?${query}`,
      );
      expect({ query, status: reply.status, code: reply.json.code }).toEqual({
        query,
        status: 400,
        code: 'invalid_request',
      });
      expect(reply.json.details.map((detail) => detail.path)).toContain(path);
    }
    const pending = await admin<{ code: string }>('GET', '/api/v1/pending?limit=1&limit=50');
    expect({ status: pending.status, code: pending.json.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(await log()).toEqual(before);
  });

  it('still takes the page’s own keys with every filter', async () => {
    const first = await admin<Log>(
      'GET',
      '/api/v1/decisions?limit=1&kind=question&since=1970-01-01T00:00:00Z&until=2999-01-01T00:00:00Z',
    );
    expect(first.status).toBe(200);
    expect(first.json.decisions.map((entry) => entry.task_id)).toEqual([tasks.bobs]);
    const second = await admin<Log>(
      'GET',
      `/api/v1/decisions?limit=1&kind=question&user_id=${meId}&task_id=${tasks.question}&cursor=${first.json.next_cursor ?? ''}`,
    );
    expect(second.status).toBe(200);
    expect(second.json.decisions.map((entry) => entry.task_id)).toEqual([tasks.question]);
  });
});
