/**
 * The built server killed with SIGKILL at named points of the response and
 * dispatch paths (DESIGN §10), restarted, and checked: no answer lost, no
 * prompt sent twice, and a retry returns the winner or claims the restored
 * bundle. Detached answers resume the real demo agent over ACP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { unavailableRuntime } from '../../src/agents/unavailable-runtime.js';
import {
  createSession,
  createTask,
  getSession,
  listMemberWorkspaces,
  messagesByPendingId,
  openStore,
  pendingReservations,
  setSessionState,
  startTurn,
  type DatabaseTarget,
  type Driver,
} from '../../src/store/index.js';
import type { FailpointName } from '../../src/support/failpoints.js';
import { startServing } from '../support/clarion-process.js';
import { bearerApi } from '../support/in-process-server.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { TWO_QUESTIONS, eventually, serviceOver } from '../support/clarification-harness.js';
import { DELIVERY_UNCONFIRMED_TYPE } from '../../src/wire/index.js';

const ADMIN_TOKEN = 'fault-test-admin-token-0123456789';

function envFor(target: DatabaseTarget, failpoints: FailpointName[] = []) {
  return {
    CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
    CLARION_FAILPOINTS: failpoints.join(','),
    CLARION_LOG_LEVEL: 'warn',
    ...(target.driver === 'sqlite'
      ? { CLARION_DATA_DIR: target.dataDir }
      : { DATABASE_URL: target.url }),
  };
}

/** A detached two-question bundle in the admin's Default workspace, as an earlier run would leave it. */
async function seedDetachedBundle(target: DatabaseTarget): Promise<string> {
  const store = await openStore(target);
  try {
    const boot = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
    const [workspace] = await listMemberWorkspaces(store, boot.admin.id);
    if (!workspace) throw new Error('no workspace');
    const task = await createTask(store, {
      workspaceId: workspace.id,
      title: 'faults',
      createdBy: boot.admin.id,
    });
    const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
    await startTurn(store, { sessionId: session.id, taskId: task.id });
    await setSessionState(store, session.id, 'running');
    const service = serviceOver(store, unavailableRuntime);
    const asked = await service.ask(session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok) throw new Error('ask failed');
    return asked.pendingId;
  } finally {
    await store.close();
  }
}

async function bundleState(target: DatabaseTarget, pendingId: string) {
  const store = await openStore(target);
  try {
    const rows = await messagesByPendingId(store, pendingId);
    const sessionId = rows[0]?.task_session_id ?? '';
    const turns = await store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('task_session_id', '=', sessionId)
      .execute();
    return {
      statuses: rows.map((row) => row.metadata.status),
      intents: rows.map((row) => row.metadata.response_delivery_pending === true),
      reservations: (await pendingReservations(store)).length,
      turns: turns.length,
    };
  } finally {
    await store.close();
  }
}

function respond(url: string, pendingId: string, body: unknown): Promise<Response> {
  return fetch(`${url}/api/v1/clarification/${pendingId}/respond`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const ANSWERS = {
  answers: [
    { question_id: 'q1', selected_options: ['q1_opt1'] },
    { question_id: 'q2', selected_options: ['q2_opt2'] },
  ],
};

function api<T>(url: string, method: string, path: string, body?: unknown) {
  return bearerApi(url, ADMIN_TOKEN)<T>(method, path, body);
}

interface Row {
  id: string;
  type: string;
  author: string;
  content: string;
  turn_id: string;
  metadata: Record<string, unknown>;
}

/** The session's transcript as a person reads it over REST. */
async function transcript(url: string, sessionId: string): Promise<Row[]> {
  const page = await api<{ messages: Row[] }>(
    url,
    'GET',
    `/api/v1/sessions/${sessionId}/messages?limit=500`,
  );
  expect(page.status).toBe(200);
  return page.json.messages;
}

async function unconfirmedNotes(url: string, sessionId: string): Promise<Row[]> {
  return (await transcript(url, sessionId)).filter((row) => row.type === DELIVERY_UNCONFIRMED_TYPE);
}

/** Turns of the session that never got `completed_at`, and the session's state. */
async function turnsAndState(target: DatabaseTarget, sessionId: string) {
  const store = await openStore(target);
  try {
    const open = await store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('task_session_id', '=', sessionId)
      .where('completed_at', 'is', null)
      .execute();
    const session = await getSession(store, sessionId);
    return { openTurns: open.length, state: session?.state };
  } finally {
    await store.close();
  }
}

type BundleState = Awaited<ReturnType<typeof bundleState>>;

async function sessionOf(target: DatabaseTarget, pendingId: string): Promise<string> {
  const store = await openStore(target);
  try {
    return (await messagesByPendingId(store, pendingId))[0]?.task_session_id ?? '';
  } finally {
    await store.close();
  }
}

describe.each(DRIVERS)('SIGKILL during a response on %s', (driver: Driver) => {
  let database: TestDatabase;

  afterEach(async () => {
    await database.dispose();
  });

  /** Seeds a detached bundle, answers it on a server told to die at `point`, and reads what the crash left. */
  async function answerAndKillAt(
    point: FailpointName,
    body: unknown,
  ): Promise<{ pendingId: string; atDeath: BundleState }> {
    database = await freshDatabase(driver, { migrated: true });
    const pendingId = await seedDetachedBundle(database.target);
    const doomed = await startServing(envFor(database.target, [point]));
    await expect(respond(doomed.url, pendingId, body)).rejects.toThrow();
    expect((await doomed.exited).signal).toBe('SIGKILL');
    return { pendingId, atDeath: await bundleState(database.target, pendingId) };
  }

  /** Starts a healthy server on the same database (recovery runs first) and checks it. */
  async function afterRestart(check: (url: string) => Promise<void>): Promise<void> {
    const restarted = await startServing(envFor(database.target));
    try {
      await check(restarted.url);
    } finally {
      await restarted.stop();
    }
  }

  it('after the claim commits: the restart restores the bundle and a retry claims it', async () => {
    const { pendingId, atDeath } = await answerAndKillAt('respond.after_claim', {
      rejected: true,
    });
    // The claim committed, its hand-off never happened.
    expect(atDeath).toEqual({
      statuses: ['rejected', 'rejected'],
      intents: [true, true],
      reservations: 0,
      turns: 1,
    });

    await afterRestart(async (url) => {
      expect(await bundleState(database.target, pendingId)).toEqual({
        statuses: ['pending', 'pending'],
        intents: [false, false],
        reservations: 0,
        turns: 1,
      });
      const retry = await respond(url, pendingId, { rejected: true });
      expect(retry.status).toBe(200);
      expect(await retry.json()).toMatchObject({ claimed: true, status: 'rejected' });
      const again = await respond(url, pendingId, ANSWERS);
      expect(await again.json()).toMatchObject({ claimed: false, status: 'rejected' });
    });
  });

  it('after reserving the successor turn: nothing was sent, so it is rolled back and resumed on retry', async () => {
    const { pendingId, atDeath } = await answerAndKillAt('dispatch.after_reservation', ANSWERS);
    expect(atDeath).toEqual({
      statuses: ['answered', 'answered'],
      intents: [true, true],
      reservations: 1,
      turns: 2,
    });

    await afterRestart(async (url) => {
      expect(await bundleState(database.target, pendingId)).toEqual({
        statuses: ['pending', 'pending'],
        intents: [false, false],
        reservations: 0,
        turns: 1,
      });
      const retry = await respond(url, pendingId, ANSWERS);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toMatchObject({ claimed: true, status: 'answered' });
      expect(await bundleState(database.target, pendingId)).toMatchObject({ turns: 2 });
    });
  });

  it.each(['dispatch.after_attempted_mark', 'dispatch.after_prompt'] as const)(
    'at %s: the answer stays recorded and the prompt is never sent again',
    async (point) => {
      const { pendingId, atDeath } = await answerAndKillAt(point, ANSWERS);
      expect(atDeath).toEqual({
        statuses: ['answered', 'answered'],
        intents: [true, true],
        reservations: 1,
        turns: 2,
      });

      await afterRestart(async (url) => {
        // Past the attempted mark the prompt may have reached the agent: keep, never resend.
        expect(await bundleState(database.target, pendingId)).toEqual({
          statuses: ['answered', 'answered'],
          intents: [false, false],
          reservations: 0,
          turns: 2,
        });
        const retry = await respond(url, pendingId, { rejected: true });
        expect(retry.status).toBe(200);
        expect(await retry.json()).toMatchObject({
          claimed: false,
          status: 'answered',
          response: {
            answers: [{ selected_options: ['q1_opt1'] }, { selected_options: ['q2_opt2'] }],
          },
        });
        expect(await bundleState(database.target, pendingId)).toMatchObject({ turns: 2 });

        // The successor turn never finished: the person is told, once, and can send it again.
        const sessionId = await sessionOf(database.target, pendingId);
        const notes = await unconfirmedNotes(url, sessionId);
        expect(notes).toHaveLength(1);
        expect(notes[0]?.metadata).toMatchObject({
          clarification_pending_id: pendingId,
          resend_text:
            'Which parser should we use?\nHand-written\n\nWhich checks should run?\nTypes',
          resend_admission_key: `resend:${pendingId}`,
        });
        expect(await turnsAndState(database.target, sessionId)).toEqual({
          openTurns: 0,
          state: 'idle',
        });
      });
      await afterRestart(async (url) => {
        const sessionId = await sessionOf(database.target, pendingId);
        expect(await unconfirmedNotes(url, sessionId)).toHaveLength(1);
      });
    },
  );

  it('after a live waiter took the answer: the restart notes it, closes the call and the turn, and the answer can be sent again', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const doomed = await startServing(envFor(database.target, ['delivery.after_live_hand_off']));
    const created = await api<{ session: { id: string } }>(doomed.url, 'POST', '/api/v1/tasks', {
      title: 'live hand-off',
      prompt: '/ask',
    });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id;
    let pendingId = '';
    await eventually(async () => {
      const list = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
        doomed.url,
        'GET',
        '/api/v1/pending',
      );
      pendingId = list.json.bundles.find((b) => b.session_id === sessionId)?.pending_id ?? '';
      const rows = await transcript(doomed.url, sessionId);
      const asking = rows.some(
        (row) => row.type === 'tool_call' && row.metadata.status === 'in_progress',
      );
      return pendingId !== '' && asking;
    }, 20_000);

    await expect(
      respond(doomed.url, pendingId, {
        answers: [{ question_id: 'q1', selected_options: ['hand_written'], custom_text: 'tiny' }],
      }),
    ).rejects.toThrow();
    expect((await doomed.exited).signal).toBe('SIGKILL');
    // Handed off (the intent is gone), the agent's turn not ended.
    expect(await bundleState(database.target, pendingId)).toMatchObject({
      statuses: ['answered'],
      intents: [false],
    });
    // The hand-off moved the session back to running; only the turn's end would free it.
    expect(await turnsAndState(database.target, sessionId)).toEqual({
      openTurns: 1,
      state: 'running',
    });

    let resend = { text: '', key: '' };
    await afterRestart(async (url) => {
      const rows = await transcript(url, sessionId);
      const notes = rows.filter((row) => row.type === DELIVERY_UNCONFIRMED_TYPE);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({
        author: 'system',
        metadata: {
          clarification_pending_id: pendingId,
          resend_text: 'How should I create the configuration file?\nHand-written; tiny',
          resend_admission_key: `resend:${pendingId}`,
        },
      });
      resend = {
        text: String(notes[0]?.metadata.resend_text),
        key: String(notes[0]?.metadata.resend_admission_key),
      };
      const calls = rows.filter((row) => row.type === 'tool_call');
      expect(calls.map((row) => row.metadata.status)).toEqual(['failed']);
      expect(await turnsAndState(database.target, sessionId)).toEqual({
        openTurns: 0,
        state: 'idle',
      });

      // Sending it again is an ordinary message; a second click admits nothing new.
      const body = { text: resend.text, admission_key: resend.key };
      const send = () =>
        api<{ outcome: string }>(url, 'POST', `/api/v1/sessions/${sessionId}/messages`, body);
      const sent = await send();
      // After a restart the agent starts on this message: sent if it is up within admission's
      // short wait, else queued until it is; either way it runs once, below.
      expect([
        { status: 200, outcome: 'sent' },
        { status: 202, outcome: 'queued' },
      ]).toContainEqual({ status: sent.status, outcome: sent.json.outcome });
      expect((await send()).status).toBeLessThan(300);
      await eventually(async () => {
        const replies = (await transcript(url, sessionId)).filter(
          (row) => row.author === 'agent' && row.type === 'message',
        );
        return replies.some((row) => row.content.includes('Hand-written; tiny'));
      }, 20_000);
      await eventually(
        async () => (await turnsAndState(database.target, sessionId)).state === 'idle',
        20_000,
      );
      const resent = (await transcript(url, sessionId)).filter(
        (row) => row.author === 'user' && row.type === 'message' && row.content === resend.text,
      );
      expect(resent).toHaveLength(1);
    });

    // Recovery runs again: still one note, nothing reopened.
    await afterRestart(async (url) => {
      expect(await unconfirmedNotes(url, sessionId)).toHaveLength(1);
      const users = (await transcript(url, sessionId)).filter((row) => row.author === 'user');
      expect(users.map((row) => row.content)).toEqual(['/ask', resend.text]);
    });
  });
});
