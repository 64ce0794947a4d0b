/**
 * A task created without a first prompt writes nothing more until someone
 * sends it a message, so its creation is announced on its own: a browser
 * subscribed to the events socket hears `session.state_changed` for the new
 * session (idle), and lists the task without waiting for a reconnect. One
 * created with a prompt is heard through its message as before. The whole
 * server in this process over a real socket, on both drivers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ClarionEvent } from '../../src/events/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'task-created-frames-admin-token-0123456789';

describe.each(DRIVERS)(
  'a task created without a prompt, heard on the events socket, on %s',
  (driver) => {
    let running: InProcessServer;
    let socket: WebSocket | undefined;
    const heard: ClarionEvent[] = [];

    beforeEach(async () => {
      running = await startInProcessServer(driver, ADMIN_TOKEN, { host: new TestHost() });
      heard.length = 0;
    });

    afterEach(async () => {
      socket?.close();
      socket = undefined;
      await running.dispose();
    });

    async function subscribe(): Promise<void> {
      const opened = new WebSocket(`${running.server.url.replace('http', 'ws')}/api/v1/events`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      socket = opened;
      let subscribed = false;
      opened.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString('utf8')) as { type: string; event?: ClarionEvent };
        if (frame.type === 'subscribed') subscribed = true;
        if (frame.event) heard.push(frame.event);
      });
      await new Promise((resolve, reject) => {
        opened.once('open', resolve);
        opened.once('error', reject);
      });
      opened.send(JSON.stringify({ type: 'subscribe', all: true }));
      await eventually(() => subscribed);
    }

    it('is announced as its session’s state, idle, with nothing waiting', async () => {
      await subscribe();
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
