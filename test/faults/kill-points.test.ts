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
  ClarificationService,
  DEFAULT_BUDGETS,
  LiveWaiters,
} from '../../src/clarification/index.js';
import { createSessionWriter } from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  createSession,
  createTask,
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
import { systemTimers } from '../../src/support/timers.js';
import { createSuccessorTurns } from '../../src/turns/successor-turn.js';
import { startServing } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { RecordingObserver, RecordingPublisher } from '../support/recorders.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';

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
    const service = new ClarificationService({
      store,
      waiters: new LiveWaiters(systemTimers),
      successors: createSuccessorTurns(unavailableRuntime),
      sessions: createSessionWriter({
        store,
        events: new RecordingPublisher(),
        userInputPending: () => null,
      }),
      observer: new RecordingObserver(),
      logger: silentLogger,
      timers: systemTimers,
      budgets: DEFAULT_BUDGETS,
    });
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

type BundleState = Awaited<ReturnType<typeof bundleState>>;

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
    database = await freshDatabase(driver);
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
      });
    },
  );
});
