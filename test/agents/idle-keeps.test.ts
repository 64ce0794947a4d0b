/**
 * What the idle stop spares (issue 13): an agent whose question is still
 * open after its turn ended (the demo's `/ask-detach`), or that waits on a
 * person's consent, is not stopped however long the idle bound has passed;
 * once the question is answered and its turn is over, the agent is stopped.
 * The built server with the real demo agent; the rule is the same on both
 * databases (`idle-resume.test.ts` runs the stop itself on both).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { quickDetachEnv } from '../support/quick-detach.js';
import { childrenOf, clarionApi } from './supervisor-support.js';

const ADMIN_TOKEN = 'idle-keeps-test-admin-token-0123456789';
const IDLE_S = 1;
/** Several idle bounds, so a stop would have happened on a loaded machine too. */
const LONGER_THAN_IDLE_MS = 4_000;

interface Bundle {
  pending_id: string;
  session_id: string;
}

describe('the idle stop spares an agent someone still has to answer', () => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
  });

  it('keeps an agent with an open question or a pending consent, and stops it once answered', async () => {
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_IDLE_S: String(IDLE_S),
      CLARION_AGENT_STOP_GRACE_S: '1',
      ...quickDetachEnv(),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);
    const serverPid = server.child.pid ?? 0;
    const agents = () => childrenOf(serverPid);
    const create = async (prompt: string) => {
      const created = await api('POST', '/api/v1/tasks', { title: prompt, prompt });
      expect(created.status).toBe(201);
      return created.json as { session: { id: string }; task: { id: string } };
    };
    const state = async (taskId: string) =>
      (
        (await api('GET', `/api/v1/tasks/${taskId}/sessions`)).json.sessions as { state: string }[]
      )[0]?.state;
    const agentSaid = async (sessionId: string, words: string) =>
      (
        (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json.messages as {
          author: string;
          content: string;
        }[]
      ).some((message) => message.author === 'agent' && message.content.includes(words));

    // The agent gave up its own wait: its turn is over, the question is still open.
    const detached = await create('/ask-detach');
    const sessionId = detached.session.id;
    let bundle: Bundle | undefined;
    await eventually(async () => {
      const pending = await api('GET', '/api/v1/pending');
      bundle = (pending.json.bundles as Bundle[]).find((found) => found.session_id === sessionId);
      return (
        bundle !== undefined && (await agentSaid(sessionId, 'I will continue when you answer.'))
      );
    }, 20_000);
    await eventually(async () => (await state(detached.task.id)) === 'idle', 20_000);
    const asking = agents();
    expect(asking).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, LONGER_THAN_IDLE_MS));
    expect(agents()).toEqual(asking);

    // A second agent waits on a person's consent, with the first still kept.
    const consent = await create('/permission');
    await eventually(async () => {
      const waiting = await api('GET', '/api/v1/user-inputs');
      return (waiting.json.requests as { session_id: string }[]).some(
        (request) => request.session_id === consent.session.id,
      );
    }, 20_000);
    expect(agents()).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, LONGER_THAN_IDLE_MS));
    expect(agents()).toHaveLength(2);

    // Answered: the resumed turn runs, and then the idle stop takes the first agent.
    const answered = await api(
      'POST',
      `/api/v1/clarification/${bundle?.pending_id ?? ''}/respond`,
      {
        answers: [{ question_id: 'q1', selected_options: ['generated'] }],
      },
    );
    expect(answered.status).toBe(200);
    await eventually(() => agentSaid(sessionId, '"Generated"'), 20_000);
    await eventually(() => agents().length === 1, 20_000);
    expect(await state(detached.task.id)).toBe('idle');
  }, 90_000);
});
