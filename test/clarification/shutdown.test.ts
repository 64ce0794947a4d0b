/**
 * Stopping the server while agents wait on questions: every live wait ends
 * as detached and that write lands before the store closes, so after a
 * restart the questions are still answerable and resume their agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messagesByPendingId, openStore } from '../../src/store/index.js';
import { eventually, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';

const TOKEN = 'shutdown-admin-token-0123456789ab';

describe.each(DRIVERS)('shutting down with live waits on %s', (driver) => {
  let running: InProcessServer;

  afterEach(async () => {
    await running.dispose();
  });

  it('ends each wait as detached and writes that before the store closes', async () => {
    running = await startInProcessServer(driver, TOKEN);
    const { server } = running;
    const sessions = [
      await seedAdminSession(server.store, 'shutdown'),
      await seedAdminSession(server.store, 'shutdown'),
    ];
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

    await running.stop();
    const outcomes = await Promise.all(asks);
    expect(outcomes).toEqual([
      expect.objectContaining({ ok: true, outcome: 'open', reason: 'detached' }),
      expect.objectContaining({ ok: true, outcome: 'open', reason: 'detached' }),
    ]);

    const store = await openStore(running.database.target);
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
