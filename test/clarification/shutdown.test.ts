/**
 * Stopping the server while agents wait on questions: every live wait ends
 * as detached and that write lands before the store closes, so after a
 * restart the questions are still answerable and resume their agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer } from '../../src/server.js';
import {
  createSession,
  createTask,
  firstAdmin,
  listMemberWorkspaces,
  messagesByPendingId,
  openStore,
  setSessionState,
  startTurn,
  type RepoContext,
} from '../../src/store/index.js';
import { eventually, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const TOKEN = 'shutdown-admin-token-0123456789ab';

async function runningSession(store: RepoContext): Promise<string> {
  const admin = await firstAdmin(store);
  const [workspace] = admin ? await listMemberWorkspaces(store, admin.id) : [];
  if (!admin || !workspace) throw new Error('no admin workspace');
  const task = await createTask(store, {
    workspaceId: workspace.id,
    title: 'shutdown',
    createdBy: admin.id,
  });
  const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
  await startTurn(store, { sessionId: session.id, taskId: task.id });
  await setSessionState(store, session.id, 'running');
  return session.id;
}

describe.each(DRIVERS)('shutting down with live waits on %s', (driver) => {
  let database: TestDatabase;

  afterEach(async () => {
    await database.dispose();
  });

  it('ends each wait as detached and writes that before the store closes', async () => {
    database = await freshDatabase(driver);
    const config: Config = {
      host: '127.0.0.1',
      port: 0,
      dataDir: database.target.driver === 'sqlite' ? database.target.dataDir : '/tmp',
      database: database.target,
      logLevel: 'silent',
      adminToken: TOKEN,
      publicOrigin: undefined,
      agentProfiles: loadAgentProfiles({}),
    };
    const server = await startServer(config, silentLogger);
    const sessions = [await runningSession(server.store), await runningSession(server.store)];
    const asks = sessions.map((sessionId) => server.clarification.ask(sessionId, TWO_QUESTIONS));
    const pendingIds: string[] = [];
    await eventually(async () => {
      pendingIds.length = 0;
      for (const sessionId of sessions) {
        const row = await server.store.db
          .selectFrom('task_session_messages')
          .select('metadata')
          .where('task_session_id', '=', sessionId)
          .where('type', '=', 'clarification_request')
          .executeTakeFirst();
        const pendingId = row
          ? (JSON.parse(row.metadata) as { pending_id?: string }).pending_id
          : '';
        if (pendingId) pendingIds.push(pendingId);
      }
      return pendingIds.length === sessions.length;
    });

    await server.close();
    const outcomes = await Promise.all(asks);
    expect(outcomes).toEqual([
      expect.objectContaining({ ok: true, outcome: 'open', reason: 'detached' }),
      expect.objectContaining({ ok: true, outcome: 'open', reason: 'detached' }),
    ]);

    const store = await openStore(database.target);
    try {
      for (const pendingId of pendingIds) {
        const rows = await messagesByPendingId(store, pendingId);
        expect(
          rows.map((row) => [row.metadata.status ?? 'pending', row.metadata.agent_disconnected]),
        ).toEqual([
          ['pending', true],
          ['pending', true],
        ]);
      }
    } finally {
      await store.close();
    }
  });
});
