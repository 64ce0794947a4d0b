/**
 * Only a person decides (DESIGN §6, issue 17 finding 1). The token a
 * session's agent holds reaches `/mcp` and can read its own session; with it
 * the agent must not answer, approve or cancel anything, over REST or MCP, and
 * must change nothing. Every decision a person makes records who and where.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import type { UserInputView } from '../../src/user-input/index.js';
import { ROUTES, type PendingBundle, type Responder } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { browserSignIn, sendTo } from '../support/browser-sign-in.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { waitingItems, type WaitingItems } from '../support/waiting-items.js';

const TOKEN = 'only-a-person-decides-admin-token';

describe.each(DRIVERS)('only a person decides, on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let startTask: WaitingItems['startTask'];
  let pendingOf: WaitingItems['pendingOf'];
  let userInputOf: WaitingItems['userInputOf'];
  let me: { id: string; name: string };

  beforeAll(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = running.api;
    ({ startTask, pendingOf, userInputOf } = waitingItems(admin));
    me = (await admin<{ user: { id: string; name: string } }>('GET', '/api/v1/me')).json.user;
  });
  afterAll(async () => {
    await running.dispose();
  });

  /** The same kind of token the session's agent process is given. */
  async function agentTokenFor(sessionId: string): Promise<string> {
    const issued = await issueToken(running.server.store, {
      kind: 'agent',
      userId: me.id,
      sessionId,
    });
    return issued.secret;
  }

  async function mcpClient(token: string): Promise<Client> {
    const client = new Client({ name: 'decides-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', running.server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  function answersFor(bundle: PendingBundle) {
    return {
      answers: bundle.questions.map((question) => ({
        question_id: question.question_id,
        selected_options: [question.options[0]?.option_id ?? ''],
      })),
    };
  }

  it('refuses an agent token on every state-changing REST route, and nothing changes', async () => {
    const { sessionId, taskId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    const agent = bearerApi(running.server.url, await agentTokenFor(sessionId));
    const params: Record<string, string> = {
      pendingId: bundle.pending_id,
      id: sessionId,
      itemId: 'item-1',
      userId: me.id,
    };
    const writes = ROUTES.filter(
      (route) => route.method !== 'get' && route.path.startsWith('/api/v1/'),
    );
    expect(writes.length).toBeGreaterThan(10);
    for (const route of writes) {
      const path = route.path
        .replace(/\{(\w+)\}/g, (_all, name: string) => params[name] ?? 'x')
        .replace(`/tasks/${sessionId}`, `/tasks/${taskId}`);
      const body = route.path.endsWith('/respond') ? answersFor(bundle) : {};
      const reply = await agent(route.method.toUpperCase(), path, body);
      expect({ route: `${route.method} ${route.path}`, status: reply.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
      });
      expect(reply.json).toMatchObject({ code: 'person_required' });
    }
    // Still pending, still the agent's; the task and session are where they were.
    const view = await admin<{ status: string; response: unknown }>(
      'GET',
      `/api/v1/clarification/${bundle.pending_id}`,
    );
    expect(view.json).toMatchObject({ status: 'pending', response: null });
    expect((await admin('GET', `/api/v1/tasks/${taskId}/sessions`)).status).toBe(200);
    // Reading its own session is still allowed.
    expect((await agent('GET', `/api/v1/sessions/${sessionId}/messages`)).status).toBe(200);

    const answered = await admin<{ response: { responded_by: Responder } }>(
      'POST',
      `/api/v1/clarification/${bundle.pending_id}/respond`,
      answersFor(bundle),
    );
    expect(answered.status).toBe(200);
    expect(answered.json.response.responded_by).toEqual({
      user_id: me.id,
      name: me.name,
      surface: 'rest',
    });
  });

  /** `clarification_responses_total` for `outcome`, as `/metrics` (loopback, no token) says it. */
  async function respondsCounted(outcome: string): Promise<number> {
    const text = await (await fetch(new URL('/metrics', running.server.url))).text();
    const line = new RegExp(
      `^clarification_responses_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)$`,
      'm',
    );
    const count = line.exec(text)?.[1];
    if (count === undefined) throw new Error(`no clarification_responses_total for ${outcome}`);
    return Number(count);
  }

  it('offers answer_question to no agent over MCP; a person over MCP is recorded as mcp', async () => {
    const { sessionId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    const before = {
      personRequired: await respondsCounted('person_required'),
      internal: await respondsCounted('internal'),
    };
    const agentClient = await mcpClient(await agentTokenFor(sessionId));
    try {
      const refused = (await agentClient.callTool({
        name: 'answer_question',
        arguments: { pending_id: bundle.pending_id, ...answersFor(bundle) },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('Tool answer_question not found');
    } finally {
      await agentClient.close();
    }
    const still = await admin('GET', `/api/v1/clarification/${bundle.pending_id}`);
    expect(still.json).toMatchObject({ status: 'pending' });
    // Not listed to an agent, so no respond ran: none is counted, least of all as a server fault.
    expect({
      personRequired: await respondsCounted('person_required'),
      internal: await respondsCounted('internal'),
    }).toEqual(before);

    const personClient = await mcpClient(TOKEN);
    try {
      const answered = (await personClient.callTool({
        name: 'answer_question',
        arguments: { pending_id: bundle.pending_id, ...answersFor(bundle) },
      })) as CallToolResult;
      expect(answered.isError ?? false).toBe(false);
      expect(answered.structuredContent).toMatchObject({
        claimed: true,
        response: { responded_by: { user_id: me.id, name: me.name, surface: 'mcp' } },
      });
    } finally {
      await personClient.close();
    }
    // The transcript row keeps who answered, for every later reader.
    const page = await admin<{ messages: { metadata: Record<string, unknown> }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    const row = page.json.messages.find(
      (message) => message.metadata.pending_id === bundle.pending_id,
    );
    expect(row?.metadata.responded_by).toEqual({ user_id: me.id, name: me.name, surface: 'mcp' });
  });

  it('refuses an agent approving its own permission request, "always" included', async () => {
    const { sessionId } = await startTask('/permission');
    const request = await userInputOf(sessionId);
    const agent = bearerApi(running.server.url, await agentTokenFor(sessionId));
    const refused = await agent('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'person_required' });
    expect((await userInputOf(sessionId)).status).toBe('awaiting');

    const chosen = await admin<{ request: UserInputView }>(
      'POST',
      `/api/v1/user-inputs/${request.id}/respond`,
      { option_id: 'allow-once' },
    );
    expect(chosen.status).toBe(200);
    expect(chosen.json.request).toMatchObject({
      status: 'settled',
      settled_reason: 'human',
      responded_by: { user_id: me.id, name: me.name, surface: 'rest' },
    });
    // The registry forgets requests on restart; the transcript keeps the decision.
    let decision: { author: string; metadata: Record<string, unknown> } | undefined;
    await eventually(async () => {
      const page = await admin<{
        messages: { type: string; author: string; metadata: Record<string, unknown> }[];
      }>('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
      decision = page.json.messages.find((message) => message.type === 'user_input_decision');
      return decision !== undefined;
    });
    expect(decision).toMatchObject({
      author: 'user',
      metadata: {
        user_input_request_id: request.id,
        kind: 'consent',
        option_id: 'allow-once',
        option_label: 'Allow once',
        remembered: false,
        responded_by: { user_id: me.id, name: me.name, surface: 'rest' },
      },
    });
  });

  it('records a cancel by a person on the web, with the cookie as the surface', async () => {
    const { sessionId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    const session = await browserSignIn(
      sendTo(running.server.url),
      running.server.signInUrl,
      running.server.url,
    );
    const cookie = `clarion_session=${session ?? ''}`;
    expect(cookie).toMatch(/^clarion_session=/);
    const cancelled = await fetch(
      `${running.server.url}/api/v1/clarification/${bundle.pending_id}/cancel`,
      {
        method: 'POST',
        headers: {
          cookie,
          origin: running.server.url,
          'content-type': 'application/json',
        },
        body: '{}',
      },
    );
    expect(cancelled.status).toBe(200);
    const page = await admin<{ messages: { metadata: Record<string, unknown> }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    const row = page.json.messages.find(
      (message) => message.metadata.pending_id === bundle.pending_id,
    );
    expect(row?.metadata).toMatchObject({
      status: 'cancelled',
      responded_by: { user_id: me.id, name: me.name, surface: 'web' },
    });
  });

  it('lists every decision in the log, newest first, with who and where; an agent only its own', async () => {
    const { sessionId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    await admin('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      rejected: true,
      reject_reason: 'not now',
    });
    const log = await admin<{ decisions: Record<string, unknown>[]; next_cursor: string | null }>(
      'GET',
      '/api/v1/decisions?limit=200',
    );
    expect(log.status).toBe(200);
    expect(log.json.decisions[0]).toMatchObject({
      session_id: sessionId,
      kind: 'question',
      outcome: 'skipped',
      detail: 'not now',
      task_title: '/ask',
      responded_by: { user_id: me.id, name: me.name, surface: 'rest' },
    });
    const kinds = new Set(
      log.json.decisions.map((entry) => `${String(entry.kind)}:${String(entry.outcome)}`),
    );
    // The earlier tests of this server answered over REST and MCP, allowed a consent, cancelled on the web.
    expect([...kinds]).toEqual(
      expect.arrayContaining([
        'question:skipped',
        'question:answered',
        'consent:allowed',
        'question:cancelled',
      ]),
    );
    const surfaces = new Set(
      log.json.decisions.map((entry) => (entry.responded_by as { surface: string }).surface),
    );
    expect([...surfaces].sort()).toEqual(['mcp', 'rest', 'web']);

    // Pages follow one another without gaps or repeats.
    const first = await admin<{ decisions: { message_id: string }[]; next_cursor: string | null }>(
      'GET',
      '/api/v1/decisions?limit=2',
    );
    expect(first.json.next_cursor).not.toBeNull();
    const second = await admin<{ decisions: { message_id: string }[] }>(
      'GET',
      `/api/v1/decisions?limit=2&cursor=${first.json.next_cursor ?? ''}`,
    );
    expect(
      [...first.json.decisions, ...second.json.decisions].map((entry) => entry.message_id),
    ).toEqual(log.json.decisions.slice(0, 4).map((entry) => entry.message_id));
    expect((await admin('GET', '/api/v1/decisions?cursor=nonsense')).status).toBe(400);

    const agent = bearerApi(running.server.url, await agentTokenFor(sessionId));
    const own = await agent<{ decisions: { session_id: string }[] }>('GET', '/api/v1/decisions');
    expect(own.json.decisions.map((entry) => entry.session_id)).toEqual([sessionId]);
  });
});
