/**
 * A person is deleted, or removed from the workspace, while the demo agent
 * acting for them (a real ACP process, asking through its real MCP client)
 * waits on a question. No agent may act for them there any more (a deleted
 * person's tokens went with them; a removed one may no longer see the task),
 * so nothing could bring that question's answer to its agent: the people
 * who see it and the agent must agree that it is over. The session fails
 * saying why, the question expires (out of the pending list), the agent is
 * stopped, and the agent never says the question could not be asked, nor
 * that it will go on when someone answers. What the session shows says why
 * (the question expired by `owner_deleted` or `owner_removed`, no note of
 * the stop's exit, no tool call left running), and a restart is refused
 * with that code without changing the recorded reason; a removed person
 * added back may have it restarted. Both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type InProcessServer,
} from '../support/in-process-server.js';

const TOKEN = 'asker-gone-admin-token-0123456789';

interface Message {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** How the person leaves, and what the session then says. */
const LEAVINGS = [
  { how: 'deleted', code: 'owner_deleted', says: 'was deleted' },
  { how: 'removed from the workspace', code: 'owner_removed', says: 'was removed' },
] as const;

describe.each(DRIVERS)('a person gone while their agent asks, on %s', (driver) => {
  let running: InProcessServer;

  beforeEach(async () => {
    running = await startInProcessServer(driver, TOKEN);
  });

  afterEach(async () => {
    await running.dispose();
  });

  it.each(LEAVINGS.map((leaving) => [leaving.how, leaving] as const))(
    '%s: ends the session and its question for everyone, and the agent agrees',
    async (_how, { how, code, says }) => {
      const admin = running.api;
      const spaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
      const workspaceId = spaces.json.workspaces[0]?.id ?? '';
      const made = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
        name: 'Bea',
      });
      const bea = made.json.user.id;
      const joined = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
        user_id: bea,
      });
      expect(joined.status).toBe(201);

      // Bea starts the task: the demo agent acts for her, with a token minted for her.
      const asBea = bearerApi(running.server.url, made.json.token);
      const created = await asBea<{ task: { id: string }; session: { id: string } }>(
        'POST',
        '/api/v1/tasks',
        { title: 'Bea’s task', prompt: '/ask', workspace_id: workspaceId },
      );
      expect(created.status).toBe(201);
      const { task, session } = created.json;
      const pendingIds = async () =>
        (
          await admin<{ bundles: { pending_id: string; session_id: string }[] }>(
            'GET',
            '/api/v1/pending',
          )
        ).json.bundles
          .filter((bundle) => bundle.session_id === session.id)
          .map((bundle) => bundle.pending_id);
      let pendingId = '';
      await eventually(async () => {
        pendingId = (await pendingIds())[0] ?? '';
        return pendingId !== '';
      }, 15_000);

      const gone = await fetch(
        how === 'deleted'
          ? `${running.server.url}/api/v1/users/${bea}`
          : `${running.server.url}/api/v1/workspaces/${workspaceId}/members/${bea}`,
        { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } },
      );
      expect(gone.status).toBe(204);

      // What people see: the session failed and says why; the question is over, for everyone.
      const sessions = await admin<{ sessions: SessionView[] }>(
        'GET',
        `/api/v1/tasks/${task.id}/sessions`,
      );
      expect(sessions.json.sessions.find((s) => s.id === session.id)).toMatchObject({
        state: 'failed',
        failure: { code, message: expect.stringContaining(says) as unknown },
      });
      expect(await pendingIds()).toEqual([]);
      const view = await admin('GET', `/api/v1/clarification/${pendingId}`);
      expect(view.json).toMatchObject({ status: 'expired', active: false });
      const answer = await admin('POST', `/api/v1/clarification/${pendingId}/respond`, {
        answers: [{ question_id: 'q1', selected_options: ['generated'] }],
      });
      expect(answer.status).toBe(409);
      expect(running.server.turns.host.isStarted(session.id)).toBe(false);

      // The agent's turn is over once anything follows its question: its own word, or its stop.
      const messages = async () =>
        (await admin<{ messages: Message[] }>('GET', `/api/v1/sessions/${session.id}/messages`))
          .json.messages;
      const afterQuestion = async () => {
        const all = await messages();
        const asked = all.findIndex((message) => message.type === 'clarification_request');
        return asked < 0 ? [] : all.slice(asked + 1);
      };
      const turnsOpen = async () =>
        (
          await running.server.store.db
            .selectFrom('task_session_turns')
            .select('completed_at')
            .where('task_session_id', '=', session.id)
            .execute()
        ).filter((turn) => turn.completed_at === null).length;
      await eventually(async () => (await turnsOpen()) === 0, 15_000);
      const all = await messages();
      // Its question says why it ended; the stop that ended the turn is no failure of the agent.
      expect(
        all.filter((message) => message.type === 'clarification_request').map((m) => m.metadata),
      ).toEqual([expect.objectContaining({ status: 'expired', expired_by: code })]);
      expect(all.filter((message) => message.type === 'error')).toEqual([]);
      // Its ask ended with the turn: nothing of it reads as still running.
      const toolCalls = all.filter((message) => message.type === 'tool_call');
      expect(toolCalls.length).toBeGreaterThan(0);
      for (const call of toolCalls) expect(['completed', 'failed']).toContain(call.metadata.status);
      // What the agent said, if it spoke before its stop, agrees.
      const said = (await afterQuestion())
        .filter((message) => message.author === 'agent' && message.type === 'message')
        .map((message) => message.content)
        .join('\n');
      expect(said).not.toContain('could not be asked');
      expect(said).not.toContain('I will continue when you answer');

      // No agent may act for someone gone: a restart is refused, and the reason stays as recorded.
      const restart = await admin('POST', `/api/v1/sessions/${session.id}/restart`);
      expect(restart.status).toBe(409);
      expect(restart.json).toMatchObject({ code });
      const after = await admin<{ sessions: SessionView[] }>(
        'GET',
        `/api/v1/tasks/${task.id}/sessions`,
      );
      expect(after.json.sessions.find((s) => s.id === session.id)).toMatchObject({
        state: 'failed',
        failure: { code },
      });
      if (how === 'deleted') return;
      // Added back, they may have their agent run again.
      const rejoined = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
        user_id: bea,
      });
      expect(rejoined.status).toBe(201);
      const again = await admin('POST', `/api/v1/sessions/${session.id}/restart`);
      expect(again.status).toBe(200);
    },
    60_000,
  );
});
