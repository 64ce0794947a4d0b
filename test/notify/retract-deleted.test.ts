/**
 * A question its person was told of, whose task is then deleted, on SQLite
 * and PostgreSQL: the channel that can take a notice back (a webhook here;
 * Web Push the same) hears `answered` for it, as for any item that stopped
 * waiting, so a phone drops a notification that leads nowhere. It says no
 * more than the `asked` it takes back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'retract-deleted-admin-token-0123456';
const WAIT_MS = 20_000;

describe.each(DRIVERS)('a notice of a deleted task on %s', (driver: Driver) => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  let receiver: Receiver | undefined;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await receiver?.close();
    receiver = undefined;
    await database.dispose();
  });

  it.each(['task', 'session'] as const)(
    'is taken back once its %s is deleted',
    async (deleted) => {
      server = await startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, {
        notify: FAST_NOTIFY,
      });
      const running = server;
      const api = bearerApi(running.url, ADMIN_TOKEN);
      const hook = await startReceiver();
      receiver = hook;
      await addChannel(api, { kind: 'webhook', url: hook.url });
      const sessionId = await seedAdminSession(running.store, 'Soon deleted');
      const { task_id: taskId } = await running.store.db
        .selectFrom('task_sessions')
        .select('task_id')
        .where('id', '=', sessionId)
        .executeTakeFirstOrThrow();
      running.clarification.ask(sessionId, SHIP_IT).catch(() => undefined);
      await eventually(() => hook.received.length === 1, WAIT_MS);
      const asked = JSON.parse(hook.received[0]?.body ?? '{}') as Record<string, unknown>;
      expect(asked.event).toBe('asked');

      const path = deleted === 'task' ? `/api/v1/tasks/${taskId}` : `/api/v1/sessions/${sessionId}`;
      const response = await fetch(`${running.url}${path}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await response.arrayBuffer();
      expect(response.status).toBeLessThan(300);

      await noticesSettled(running);
      expect(
        hook.received.map((request) => (JSON.parse(request.body) as { event: string }).event),
      ).toEqual(['asked', 'answered']);
      const answered = JSON.parse(hook.received[1]?.body ?? '{}') as Record<string, unknown>;
      expect(answered).toMatchObject({ id: asked.id, title: 'Soon deleted' });
      // What it takes back, and nothing more.
      for (const key of Object.keys(answered)) expect(Object.keys(asked)).toContain(key);
    },
    60_000,
  );
});
