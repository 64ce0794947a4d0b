/**
 * A task created without a first prompt writes nothing more until someone
 * sends it a message, so its creation is announced on its own: a browser
 * subscribed to the events socket hears `session.state_changed` for the new
 * session (idle), and lists the task without waiting for a reconnect. One
 * created with a prompt is heard through its message as before. The whole
 * server in this process over a real socket, on both drivers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { subscribeAll, type EventsListener } from '../support/events-socket.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'task-created-frames-admin-token-0123456789';

describe.each(DRIVERS)(
  'a task created without a prompt, heard on the events socket, on %s',
  (driver) => {
    let running: InProcessServer;
    let listener: EventsListener | undefined;

    beforeEach(async () => {
      running = await startInProcessServer(driver, ADMIN_TOKEN, { host: new TestHost() });
    });

    afterEach(async () => {
      listener?.close();
      listener = undefined;
      await running.dispose();
    });

    it('is announced as its session’s state, idle, with nothing waiting', async () => {
      listener = await subscribeAll(running.server.url, ADMIN_TOKEN);
      const { heard } = listener;
      const created = await running.api('POST', '/api/v1/tasks', { title: 'No prompt yet' });
      expect(created.status).toBe(201);
      const sessionId = (created.json.session as { id: string }).id;
      const taskId = (created.json.task as { id: string }).id;
      await eventually(() => heard.some((event) => event.session_id === sessionId));
      expect(heard.filter((event) => event.session_id === sessionId)).toEqual([
        {
          type: 'session.state_changed',
          session_id: sessionId,
          task_id: taskId,
          revision: expect.any(Number) as number,
          pending_action: null,
          state: 'idle',
        },
      ]);
    });
  },
);
