/**
 * Bad text on every surface, on both dialects, against the whole server
 * (issue 17, finding 7). NUL and unpaired surrogates in any text a route or an
 * MCP tool takes are refused with 400 / a tool error `invalid_text` naming the
 * field, and change nothing (PostgreSQL used to answer 500; both engines
 * stored U+FFFD for a lone surrogate). A body whose bytes are not UTF-8 is
 * refused on REST and on `/mcp` instead of being read as U+FFFD. An answer of
 * only invisible characters is no answer. Text with emoji, CJK, combining
 * marks and right-to-left runs still comes back exactly as sent, and an MCP
 * client's unstorable name becomes a storable task title instead of a 500,
 * its bidi controls written out as markers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { getSession } from '../../src/store/index.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  DB_HOSTILE_TEXTS,
  INVISIBLE_TEXTS,
  MCP_TEXT_FIELDS,
  REST_TEXT_FIELDS,
  fingerprint,
  type TextTargets,
} from '../support/hostile-cases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'bad-text-admin-token-0123456789abcdef';
const INVALID_TEXT_MESSAGE = 'text must be well-formed UTF-8 without NUL characters';
const RICH = 'Ship it 🚢👩🏽‍💻🏳️‍🌈 — 日本語のテキスト, e\u0301 n\u0303, שלום עולם, مرحبا\u200f';

interface ErrorReply {
  error?: string;
  code?: string;
  details?: { path: string; message: string }[];
}

describe.each(DRIVERS)('bad text on every surface on %s', (driver) => {
  let running: InProcessServer;
  let targets: TextTargets;
  let agentToken: string;
  let adminId: string;
  const host = new TestHost();
  const clients: Client[] = [];

  function rest(method: string, path: string, body?: string | Uint8Array) {
    return fetch(`${running.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
  }

  async function connect(token: string, name = 'bad-text-client') {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', running.server.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    return (await client.callTool(
      { name, arguments: args },
      CallToolResultSchema,
      signal ? { signal } : undefined,
    )) as CallToolResult;
  }

  async function statuses(pendingId: string): Promise<string[]> {
    const found = await running.server.clarification.get(
      { kind: 'user', userId: adminId, name: 'admin', isAdmin: true },
      pendingId,
    );
    const view = found.ok ? found.view : undefined;
    return view?.questions.map((question) => question.status) ?? [];
  }

  beforeAll(async () => {
    running = await startInProcessServer(driver, ADMIN_TOKEN, { host });
    const { api, server } = running;
    const me = await api<{ user: { id: string } }>('GET', '/api/v1/me');
    const workspaces = await api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'bad text',
      prompt: 'start',
    });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id;
    const asked = await server.clarification.ask(sessionId, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok || asked.outcome !== 'open') throw new Error('expected an open bundle');
    targets = {
      workspaceId: workspaces.json.workspaces[0]?.id ?? '',
      sessionId,
      pendingId: asked.pendingId,
    };
    adminId = me.json.user.id;
    agentToken = (
      await issueToken(server.store, { kind: 'agent', userId: me.json.user.id, sessionId })
    ).secret;
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await running.dispose();
  });

  it('refuses NUL and unpaired surrogates in every REST text field with 400 invalid_text, changing nothing', async () => {
    const before = await fingerprint(running.server.store);
    const failures: string[] = [];
    for (const field of REST_TEXT_FIELDS) {
      for (const text of DB_HOSTILE_TEXTS) {
        const response = await rest(
          field.method,
          field.path(targets),
          JSON.stringify(field.body(text)),
        );
        const reply = (await response.json()) as ErrorReply;
        const paths = reply.details?.map((detail) => detail.path) ?? [];
        if (
          response.status !== 400 ||
          reply.code !== 'invalid_text' ||
          reply.error !== INVALID_TEXT_MESSAGE ||
          !paths.includes(field.issue(text))
        ) {
          failures.push(
            `${field.name} ${JSON.stringify(text)}: ${response.status} ${JSON.stringify(reply)}`,
          );
        }
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect(await fingerprint(running.server.store)).toEqual(before);
    expect(await statuses(targets.pendingId)).toEqual(['pending', 'pending']);
  });

  it('refuses NUL and unpaired surrogates in every MCP tool argument with invalid_text, changing nothing', async () => {
    const agent = (await connect(agentToken)).client;
    const user = (await connect(ADMIN_TOKEN)).client;
    const before = await fingerprint(running.server.store);
    const failures: string[] = [];
    for (const field of MCP_TEXT_FIELDS) {
      for (const text of DB_HOSTILE_TEXTS) {
        const result = await call(
          field.as === 'agent' ? agent : user,
          field.tool,
          field.args(text, targets),
        );
        const content = result.structuredContent as
          { code?: string; issues?: { path: string }[] } | undefined;
        const paths = content?.issues?.map((issue) => issue.path) ?? [];
        if (
          result.isError !== true ||
          content?.code !== 'invalid_text' ||
          !paths.includes(field.issue(text))
        ) {
          failures.push(
            `${field.tool} ${field.name} ${JSON.stringify(text)}: ${JSON.stringify(result)}`,
          );
        }
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect(await fingerprint(running.server.store)).toEqual(before);
    expect(await statuses(targets.pendingId)).toEqual(['pending', 'pending']);
  });

  it('answers not-found for record IDs in the path that hold NUL, and refuses such cursors, without a query', async () => {
    const before = await fingerprint(running.server.store);
    const nul = encodeURIComponent('\u0000');
    const { sessionId, workspaceId } = targets;
    const cases: [string, string, unknown?][] = [
      ['GET', `/api/v1/tasks/${nul}/sessions`],
      ['DELETE', `/api/v1/tasks/a${nul}`],
      ['GET', `/api/v1/sessions/${nul}/messages`],
      [
        'POST',
        `/api/v1/sessions/${sessionId}${nul}/messages`,
        { text: 'x', admission_key: 'k-nul' },
      ],
      ['POST', `/api/v1/sessions/${nul}/cancel`],
      ['DELETE', `/api/v1/sessions/${nul}`],
      ['GET', `/api/v1/sessions/${nul}/queue`],
      ['DELETE', `/api/v1/sessions/${nul}/queue`],
      ['PUT', `/api/v1/sessions/${nul}/queue/order`, { ids: [] }],
      ['PATCH', `/api/v1/sessions/${sessionId}/queue/${nul}`, { text: 'x', base_text: 'y' }],
      ['DELETE', `/api/v1/sessions/${sessionId}/queue/${nul}`],
      ['GET', `/api/v1/workspaces/${nul}/members`],
      ['POST', `/api/v1/workspaces/${nul}/members`, { user_id: adminId }],
      ['DELETE', `/api/v1/workspaces/${workspaceId}/members/${nul}`],
      ['POST', `/api/v1/user-inputs/${nul}/respond`, { decision: 'done' }],
      ['GET', `/api/v1/clarification/${nul}`],
    ];
    // Cursors are opaque, but a crafted one could still carry NUL into a query: unreadable, 400.
    const cursor = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const cursors = [
      `/api/v1/pending?cursor=${cursor('2026-12-01T00:00:00.000000000Z|\u0000')}`,
      `/api/v1/sessions/${sessionId}/messages?cursor=${cursor('["2026-12-01T00:00:00.000000000Z","\u0000"]')}`,
      `/api/v1/decisions?cursor=${cursor('["2026-12-01T00:00:00.000000000Z","\u0000"]')}`,
    ];
    const failures: string[] = [];
    for (const [method, path, body] of cases) {
      const response = await rest(
        method,
        path,
        body === undefined ? undefined : JSON.stringify(body),
      );
      const text = await response.text();
      let code: unknown;
      try {
        code = (JSON.parse(text) as ErrorReply).code;
      } catch {
        code = undefined;
      }
      if (response.status !== 404 || code !== 'not_found') {
        failures.push(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      }
    }
    for (const path of cursors) {
      const response = await rest('GET', path);
      const text = await response.text();
      if (response.status !== 400 || !text.includes('"invalid_request"')) {
        failures.push(`GET ${path}: ${response.status} ${text.slice(0, 200)}`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect(await fingerprint(running.server.store)).toEqual(before);
  });

  it('refuses request bodies that are not UTF-8 on REST and on /mcp instead of reading U+FFFD', async () => {
    // An MCP session is stored when it opens (several replicas share it): open it first.
    const { transport } = await connect(agentToken);
    const before = await fingerprint(running.server.store);
    const broken = (prefix: string, suffix: string, byte: number) =>
      new Uint8Array([
        ...new TextEncoder().encode(prefix),
        byte,
        ...new TextEncoder().encode(suffix),
      ]);
    const restCases: [string, string, Uint8Array][] = [
      ['POST', '/api/v1/users', broken('{"name":"a', 'b"}', 0xff)],
      ['POST', '/api/v1/workspaces', broken('{"name":"a', 'b"}', 0xc0)],
      ['POST', '/api/v1/tasks', broken('{"title":"a', 'b"}', 0xed)],
      [
        'POST',
        `/api/v1/sessions/${targets.sessionId}/messages`,
        broken('{"text":"a', 'b","admission_key":"k-utf8"}', 0x80),
      ],
      [
        'POST',
        `/api/v1/clarification/${targets.pendingId}/respond`,
        broken('{"rejected":true,"reject_reason":"a', 'b"}', 0xfe),
      ],
    ];
    for (const [method, path, body] of restCases) {
      const response = await rest(method, path, body);
      expect(response.status, path).toBe(400);
      expect(await response.json()).toEqual({
        error: 'request body is not valid UTF-8',
        code: 'invalid_text',
        details: [{ path: '', message: 'must be UTF-8' }],
      });
    }

    const mcpPost = (body: Uint8Array, sessionId?: string) =>
      fetch(new URL('/mcp', running.server.url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agentToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
        },
        body,
      });
    const initialize = broken(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a',
      'b","version":"1"}}}',
      0xff,
    );
    const list = broken(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_pending_questions","arguments":{"cursor":"a',
      'b"}}}',
      0xc3,
    );
    for (const reply of [await mcpPost(initialize), await mcpPost(list, transport.sessionId)]) {
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32700,
          message: 'Parse error: request body is not valid UTF-8',
          data: { error: 'request body is not valid UTF-8', code: 'invalid_text' },
        },
      });
    }
    expect(await fingerprint(running.server.store)).toEqual(before);
  });

  it('refuses an answer_question of only invisible characters like an empty one', async () => {
    const user = (await connect(ADMIN_TOKEN)).client;
    for (const text of INVISIBLE_TEXTS) {
      const result = await call(user, 'answer_question', {
        pending_id: targets.pendingId,
        answers: [
          { question_id: 'q1', selected_options: ['q1_opt1'] },
          { question_id: 'q2', custom_text: text },
        ],
      });
      expect(result.isError, JSON.stringify(text)).toBe(true);
      expect(result.structuredContent).toMatchObject({
        code: 'invalid_request',
        issues: [{ path: 'answers.1', message: 'needs a selected option or custom text' }],
      });
    }
    expect(await statuses(targets.pendingId)).toEqual(['pending', 'pending']);
  });

  it('keeps emoji, CJK, combining marks and right-to-left text exactly as sent', async () => {
    const { api } = running;
    const user = await api<{ user: { name: string } }>('POST', '/api/v1/users', { name: RICH });
    expect(user.status).toBe(201);
    expect(user.json.user.name).toBe(RICH);
    const workspace = await api<{ workspace: { id: string; name: string } }>(
      'POST',
      '/api/v1/workspaces',
      { name: RICH },
    );
    expect(workspace.json.workspace.name).toBe(RICH);
    const task = await api<{ task: { id: string }; session: { id: string } }>(
      'POST',
      '/api/v1/tasks',
      { title: RICH, prompt: RICH },
    );
    expect(task.status).toBe(201);

    const users = await api<{ users: { name: string }[] }>('GET', '/api/v1/users');
    expect(users.json.users.map((row) => row.name)).toContain(RICH);
    const workspaces = await api<{ workspaces: { name: string }[] }>('GET', '/api/v1/workspaces');
    expect(workspaces.json.workspaces.map((row) => row.name)).toContain(RICH);
    const tasks = await api<{ tasks: { id: string; title: string }[] }>('GET', '/api/v1/tasks');
    expect(tasks.json.tasks.find((row) => row.id === task.json.task.id)?.title).toBe(RICH);
    const transcript = await api<{ messages: { author: string; content: string }[] }>(
      'GET',
      `/api/v1/sessions/${task.json.session.id}/messages`,
    );
    expect(transcript.json.messages.filter((row) => row.author === 'user')).toEqual([
      expect.objectContaining({ content: RICH }),
    ]);

    // The agent's turn ends, so the answer can start the turn that carries it.
    host.endTurn(targets.sessionId);
    await eventually(
      async () => (await getSession(running.server.store, targets.sessionId))?.state === 'idle',
    );
    const client = (await connect(ADMIN_TOKEN)).client;
    const answered = await call(client, 'answer_question', {
      pending_id: targets.pendingId,
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: RICH },
      ],
    });
    expect(answered.isError, JSON.stringify(answered)).not.toBe(true);
    const found = await running.server.clarification.get(
      { kind: 'user', userId: adminId, name: 'admin', isAdmin: true },
      targets.pendingId,
    );
    const view = found.ok ? found.view : undefined;
    expect(view?.response?.answers[1]?.custom_text).toBe(RICH);
  });

  it('names an external task after an unstorable MCP client name without failing', async () => {
    const { client } = await connect(ADMIN_TOKEN, '  claude\u0000code\ud800  ');
    const abort = new AbortController();
    const asking = call(
      client,
      'ask_user_question',
      {
        questions: [
          {
            prompt: 'Go?',
            options: [
              { label: 'Yes', description: 'y' },
              { label: 'No', description: 'n' },
            ],
          },
        ],
      },
      abort.signal,
    ).catch((error: unknown) => error);
    let titles: string[] = [];
    await eventually(async () => {
      const tasks = await running.api<{ tasks: { title: string }[] }>('GET', '/api/v1/tasks');
      titles = tasks.json.tasks.map((task) => task.title);
      return titles.includes('claudecode\ufffd');
    });
    abort.abort();
    const settled = await asking;
    expect(settled).not.toMatchObject({ structuredContent: { code: 'internal' } });
    expect(titles.filter((title) => title.startsWith('claude'))).toEqual(['claudecode\ufffd']);
  });

  it('writes the bidi controls of an MCP client’s name out as markers in its task’s title', async () => {
    const { client } = await connect(ADMIN_TOKEN, 'spoof\u202Eexe.pdf');
    const abort = new AbortController();
    const asking = call(
      client,
      'ask_user_question',
      {
        questions: [
          {
            prompt: 'Go?',
            options: [
              { label: 'Yes', description: 'y' },
              { label: 'No', description: 'n' },
            ],
          },
        ],
      },
      abort.signal,
    ).catch((error: unknown) => error);
    let titles: string[] = [];
    await eventually(async () => {
      const tasks = await running.api<{ tasks: { title: string }[] }>('GET', '/api/v1/tasks');
      titles = tasks.json.tasks.map((task) => task.title);
      return titles.some((title) => title.startsWith('spoof'));
    });
    abort.abort();
    await asking;
    expect(titles.filter((title) => title.startsWith('spoof'))).toEqual(['spoof⟨U+202E⟩exe.pdf']);
  });
});
