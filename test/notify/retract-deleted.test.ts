/**
 * A question its person was told of, whose task is then deleted, on SQLite
 * and PostgreSQL: the channel that can take a notice back (a webhook here;
 * Web Push the same) hears `answered` for it, as for any item that stopped
 * waiting, so a phone drops a notification that leads nowhere. It says no
 * more than the `asked` it takes back.
 */
import { describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { addChannel, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'retract-deleted-admin-token-0123456';
const WAIT_MS = 20_000;

describe.each(DRIVERS)('a notice of a deleted task on %s', (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  it.each(['task', 'session'] as const)(
    'is taken back once its %s is deleted',
    async (deleted) => {
      const running = await suite.serve();
      const api = suite.api(running);
      const hook = await suite.receiver();
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
