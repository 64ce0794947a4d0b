/**
 * A follow-up leaving the session queue is one queue change, and a browser
 * subscribed to the events socket hears it as one `queue.changed` frame: when
 * a person removes it (the removal's own write says it, not also each of the
 * registry's moves behind it), and when the turn's end takes it to the agent
 * (its attempt, not again its settlement). The whole server in this process
 * over a real socket, its agents played by the test so the busy windows are
 * exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClarionEvent } from '../../src/events/index.js';
import type { RunningServer } from '../../src/server.js';
import { getSession } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { subscribeAll, type EventsListener } from '../support/events-socket.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'follow-up-frames-admin-token-0123456789';

describe.each(DRIVERS)(
  'a follow-up leaving the queue, heard on the events socket, on %s',
  (driver) => {
    let running: InProcessServer;
    let server: RunningServer;
    let host: TestHost;
    let listener: EventsListener | undefined;
    let heard: ClarionEvent[] = [];

    beforeEach(async () => {
      host = new TestHost();
      running = await startInProcessServer(driver, ADMIN_TOKEN, { host });
      server = running.server;
      heard = [];
    });

    afterEach(async () => {
      listener?.close();
      listener = undefined;
      await running.dispose();
    });

    async function subscribe(): Promise<void> {
      listener = await subscribeAll(server.url, ADMIN_TOKEN);
      heard = listener.heard;
    }

    /**
     * An action answered Done while the session runs another turn: its
     * follow-up waits in the queue. Returns the session and the request.
     */
    async function queuedFollowUp(): Promise<{
      sessionId: string;
      taskId: string;
      requestId: string;
    }> {
      const created = await running.api('POST', '/api/v1/tasks', {
        title: 'frames',
        prompt: 'first',
      });
      expect(created.status).toBe(201);
      const sessionId = (created.json.session as { id: string }).id;
      const taskId = (created.json.task as { id: string }).id;
      await eventually(() => host.prompts.length === 1);
      const action = server.turns.userInputs.request({
        kind: 'action',
        sessionId,
        taskId,
        title: 'Connect the database',
        instructions: 'Open the console and add the key.',
      });
      if (!action.ok) throw new Error('request refused');
      host.endTurn(sessionId);
      await eventually(async () => (await getSession(server.store, sessionId))?.state === 'idle');
      const sent = await running.api('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'meanwhile, lint',
        admission_key: 'k-lint',
      });
      expect(sent.status).toBeLessThan(300);
      await eventually(() => host.prompts.length === 2);
      const done = await running.api('POST', `/api/v1/user-inputs/${action.id}/respond`, {
        decision: 'done',
      });
      expect(done.status).toBe(200);
      await eventually(async () => {
        const queue = await running.api<{ items: { id: string }[] }>(
          'GET',
          `/api/v1/sessions/${sessionId}/queue`,
        );
        return queue.json.items.some((item) => item.id === action.id);
      });
      return { sessionId, taskId, requestId: action.id };
    }

    /**
     * Returns once every publication the registry made for the session so far
     * is heard: a request opened in it goes through the same per-session chain
     * of the registry's publications, a queue change included, so once its
     * event is heard, so is any earlier one.
     */
    async function flush(sessionId: string, taskId: string): Promise<void> {
      const marker = server.turns.userInputs.request({
        kind: 'action',
        sessionId,
        taskId,
        title: 'Marker',
        instructions: 'Nothing to do.',
      });
      if (!marker.ok) throw new Error('marker refused');
      await eventually(() =>
        heard.some(
          (event) => event.type === 'user_input.requested' && event.request.id === marker.id,
        ),
      );
    }

    /** The session's `queue.changed` frames heard from `from` on. */
    function queueFrames(sessionId: string, from: number): ClarionEvent[] {
      return heard
        .slice(from)
        .filter((event) => event.type === 'queue.changed' && event.session_id === sessionId);
    }

    it('sends one frame when a person removes it', async () => {
      await subscribe();
      const { sessionId, taskId, requestId } = await queuedFollowUp();
      await flush(sessionId, taskId);
      const from = heard.length;

      const removed = await running.api(
        'DELETE',
        `/api/v1/sessions/${sessionId}/queue/${requestId}`,
      );
      expect(removed.status).toBe(200);
      await flush(sessionId, taskId);

      const frames = queueFrames(sessionId, from);
      expect(frames).toHaveLength(1);
      const ofSession = heard.filter((event) => event.session_id === sessionId);
      expect(frames[0]?.revision).toBe(Math.max(...ofSession.map((event) => event.revision)));
    });

    it('sends one frame when the turn’s end takes it to the agent', async () => {
      await subscribe();
      const { sessionId, taskId, requestId } = await queuedFollowUp();
      await flush(sessionId, taskId);
      const from = heard.length;

      host.endTurn(sessionId);
      await eventually(() => host.prompts.some((prompt) => prompt.text.startsWith('Continue.')));
      await eventually(() => server.turns.userInputs.get(requestId)?.status === 'settled');
      await flush(sessionId, taskId);

      expect(queueFrames(sessionId, from)).toHaveLength(1);
    });
  },
);
