/**
 * The flows a newcomer tries, end to end: the server with its ACP host, the
 * real demo agent process, its real MCP client calling /mcp, and a person on
 * the REST API with the admin token. Both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcpHost } from '../../src/agents/acp-host/index.js';
import type { RunningServer } from '../../src/server.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { quickDetachProfiles } from '../support/quick-detach.js';

const TOKEN = 'demo-flows-admin-token-0123456789';

interface Message {
  type: string;
  author: string;
  content: string;
  turn_id: string;
}
interface Bundle {
  pending_id: string;
  session_id: string;
  detached: boolean;
  questions: { question_id: string; options: { option_id: string; label: string }[] }[];
}

describe.each(DRIVERS)('the demo agent through ACP and MCP on %s', (driver) => {
  let running: InProcessServer;
  let server: RunningServer;

  beforeEach(async () => {
    running = await startInProcessServer(
      driver,
      TOKEN,
      {},
      { agentProfiles: quickDetachProfiles() },
    );
    server = running.server;
  });

  afterEach(async () => {
    await running.dispose();
  });

  // The caller names the JSON shape it expects; the assertion is the test's own.
  const api = <T>(method: string, path: string, body?: unknown) =>
    running.api<T>(method, path, body);

  async function startTask(prompt: string): Promise<string> {
    const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: `demo ${prompt}`,
      prompt,
    });
    expect(created.status).toBe(201);
    return created.json.session.id;
  }

  async function transcript(sessionId: string): Promise<Message[]> {
    return (
      await api<{ messages: Message[] }>('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
    ).json.messages;
  }

  async function agentText(sessionId: string): Promise<string> {
    return (await transcript(sessionId))
      .filter((message) => message.author === 'agent' && message.type === 'message')
      .map((message) => message.content)
      .join('\n');
  }

  async function sessionState(sessionId: string): Promise<string> {
    const row = await server.store.db
      .selectFrom('task_sessions')
      .select('state')
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    return row.state;
  }

  async function pendingBundle(sessionId: string): Promise<Bundle> {
    let found: Bundle | undefined;
    await eventually(async () => {
      const list = await api<{ bundles: Bundle[] }>('GET', '/api/v1/pending');
      found = list.json.bundles.find((bundle) => bundle.session_id === sessionId);
      return found !== undefined;
    }, 15_000);
    if (!found) throw new Error('no bundle');
    return found;
  }

  it('asks, takes an answer over REST, and quotes the labels', async () => {
    const sessionId = await startTask('/ask');
    const bundle = await pendingBundle(sessionId);
    expect(await sessionState(sessionId)).toBe('waiting_for_input');
    const answer = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [
        { question_id: 'q1', selected_options: ['hand_written'], custom_text: 'keep it tiny' },
      ],
    });
    expect(answer.status).toBe(200);
    await eventually(async () => (await agentText(sessionId)).includes('"Hand-written"'), 15_000);
    expect(await agentText(sessionId)).toContain('keep it tiny');
    await eventually(async () => (await sessionState(sessionId)) === 'idle', 15_000);
  });

  it('asks three questions with a shared context, and a skip is reported as skipped', async () => {
    const multi = await startTask('/ask-multi');
    const bundle = await pendingBundle(multi);
    expect(bundle.questions.map((question) => question.question_id)).toEqual(['q1', 'q2', 'q3']);
    await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [
        { question_id: 'q1', selected_options: ['hosted'] },
        { question_id: 'q2', selected_options: ['lint', 'tests'] },
        { question_id: 'q3', custom_text: 'only 20 for now' },
      ],
    });
    await eventually(async () => (await agentText(multi)).includes('"Hosted"'), 15_000);
    const text = await agentText(multi);
    expect(text).toContain('"Lint", "Tests"');
    expect(text).toContain('only 20 for now');

    const skipped = await startTask('/ask');
    const skipBundle = await pendingBundle(skipped);
    await api('POST', `/api/v1/clarification/${skipBundle.pending_id}/respond`, { rejected: true });
    await eventually(async () => (await agentText(skipped)).includes('skipped'), 15_000);
  });

  it('detaches when the live wait ends, then a late answer resumes exactly one new turn', async () => {
    const sessionId = await startTask('/ask-detach');
    const bundle = await pendingBundle(sessionId);
    await eventually(
      async () => (await agentText(sessionId)).includes('I will continue when you answer.'),
      15_000,
    );
    await eventually(async () => (await sessionState(sessionId)) === 'idle', 15_000);
    // The rows are marked detached just after the turn's end commits, in their own transaction.
    const view = () =>
      api<{ detached: boolean; active: boolean }>(
        'GET',
        `/api/v1/clarification/${bundle.pending_id}`,
      );
    await eventually(async () => (await view()).json.detached, 15_000);
    expect((await view()).json).toMatchObject({ detached: true, active: true });

    const answer = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answer.status).toBe(200);
    await eventually(async () => (await agentText(sessionId)).includes('"Generated"'), 15_000);
    await eventually(async () => (await sessionState(sessionId)) === 'idle', 15_000);
    const replay = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      rejected: true,
    });
    expect(replay.json).toMatchObject({ claimed: false });
    const turns = await server.store.db
      .selectFrom('task_session_turns')
      .select('id')
      .where('task_session_id', '=', sessionId)
      .execute();
    expect(turns).toHaveLength(2);
  });

  it('queues a message sent while the agent waits, runs it after the turn, and admits a key once', async () => {
    const sessionId = await startTask('/ask');
    const bundle = await pendingBundle(sessionId);
    const sends = await Promise.all(
      Array.from({ length: 10 }, () =>
        api<{ outcome: string }>('POST', `/api/v1/sessions/${sessionId}/messages`, {
          text: 'after that, tidy up',
          admission_key: 'tidy-1',
        }),
      ),
    );
    expect(sends.map((send) => send.status)).toEqual(Array(10).fill(202));
    expect(new Set(sends.map((send) => send.json.outcome))).toEqual(new Set(['queued']));
    await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    await eventually(
      async () => (await agentText(sessionId)).includes('You said: after that, tidy up'),
      15_000,
    );
    const users = (await transcript(sessionId)).filter((message) => message.author === 'user');
    expect(users.map((message) => message.content)).toEqual(['/ask', 'after that, tidy up']);
  });

  it('fails the session and expires its question when the agent process dies', async () => {
    const sessionId = await startTask('/ask');
    const bundle = await pendingBundle(sessionId);
    const pid = (server.turns.host as AcpHost).pid(sessionId);
    expect(pid).toBeDefined();
    process.kill(pid ?? 0, 'SIGKILL');
    await eventually(async () => (await sessionState(sessionId)) === 'failed', 15_000);
    const answer = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answer.status).toBe(409);
    const refused = await api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'hello?',
      admission_key: 'after-death',
    });
    expect(refused.status).toBe(409);
  });
});
