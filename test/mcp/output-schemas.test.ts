/**
 * Every tool lists an output schema (`wire/mcp.ts`), and every result it
 * really returns fits it, read through the SDK's own client and its own
 * validator: each status of an ask and a wait, a page, a respond reply, an
 * action's Done and Skip, and tool errors. The schemas admit the tool
 * error's shape too: the SDK's client checks an error's structured content
 * against them as well, and would throw on every refusal otherwise.
 *
 * What the tools return does not depend on the dialect: SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { firstAdmin } from '../../src/store/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';
import { mcpHarness, type McpHarness } from './mcp-harness.js';

type Tools = Awaited<ReturnType<Client['listTools']>>['tools'];

const validator = new AjvJsonSchemaValidator();

/** What each tool was seen to return: its status, `ok` for a payload without one, or `error`. */
const seen = new Set<string>();

/** Checks a result against the tool's advertised output schema and notes what it was. */
function fits(tools: Tools, name: string, result: CallToolResult): Record<string, unknown> {
  const schema = tools.find((tool) => tool.name === name)?.outputSchema;
  if (!schema) throw new Error(`${name} lists no output schema`);
  const content = result.structuredContent;
  if (!content) throw new Error(`${name} returned no structured content`);
  const checked = validator.getValidator(schema)(content);
  expect(checked.valid, `${name}: ${checked.errorMessage ?? ''}`).toBe(true);
  const status = typeof content.status === 'string' ? content.status : 'ok';
  seen.add(`${name}:${result.isError === true ? 'error' : status}`);
  return content;
}

/** The no-progress bound: a call without a progress token returns `waiting` after it. */
const CALL_WITHOUT_PROGRESS_MS = 300;

/**
 * An agent's and a person's clients of one MCP server (SQLite) whose asks stay
 * live for `liveWaitMs`, with the tools each was offered; for the enclosing
 * `describe`.
 */
function toolClients(liveWaitMs: number) {
  let m: McpHarness | undefined;
  const clients = {} as { agent: Client; person: Client; tools: Tools };
  const harness = (): McpHarness => {
    if (!m) throw new Error('the clients connect in beforeAll');
    return m;
  };

  beforeAll(async () => {
    m = await mcpHarness(DRIVERS[0] ?? 'sqlite', {
      budgets: { liveWaitMs },
      route: { callWithoutProgressMs: CALL_WITHOUT_PROGRESS_MS },
    });
    clients.agent = await m.connect(m.tokens.agent);
    clients.person = await m.connect(m.tokens.member);
    // Listing also arms the SDK client's own check of every later result. A person is offered
    // what an agent is, and answer_question.
    clients.tools = (await clients.person.listTools()).tools;
    const agentTools = (await clients.agent.listTools()).tools;
    expect(agentTools).toEqual(clients.tools.filter((tool) => tool.name !== 'answer_question'));
  });

  afterAll(async () => {
    await m?.dispose();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    fits(clients.tools, name, await harness().call(client, name, args));
  /** With a progress token the call waits as long as the ask does (no early `waiting`). */
  const callWaiting = async (client: Client, name: string, args: Record<string, unknown>) =>
    fits(
      clients.tools,
      name,
      await harness().call(client, name, args, { onprogress: () => undefined }),
    );

  async function newestPending(): Promise<string> {
    let pendingId = '';
    await eventually(async () => {
      const page = await call(clients.person, 'list_pending_questions', {});
      pendingId = (page.pending as { pending_id: string }[]).at(-1)?.pending_id ?? '';
      return pendingId !== '';
    });
    return pendingId;
  }

  return { clients, call, callWaiting, newestPending };
}

describe('output schemas on sqlite, with each ask live for the whole test', () => {
  // A person's answer on a busy machine still finds the call waiting for it.
  const { clients, call, callWaiting, newestPending } = toolClients(60_000);

  it('fits an ask answered live, and one skipped', async () => {
    const asking = callWaiting(clients.agent, 'ask_user_question', TWO_QUESTIONS);
    const pendingId = await newestPending();
    await call(clients.person, 'answer_question', { pending_id: pendingId, ...ANSWERS });
    expect(await asking).toMatchObject({ status: 'answered', pending_id: pendingId });

    const skipping = callWaiting(clients.agent, 'ask_user_question', TWO_QUESTIONS);
    const skipped = await newestPending();
    await call(clients.person, 'answer_question', { pending_id: skipped, rejected: true });
    expect(await skipping).toMatchObject({ status: 'skipped', pending_id: skipped });
  });
});

describe('output schemas on sqlite', () => {
  // Short: an ask left unanswered returns `open` once its live wait ends.
  const { clients, call, callWaiting } = toolClients(1_500);

  it('lists an output schema for every tool, and it refuses what no tool returns', () => {
    for (const tool of clients.tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }
    const check = (name: string, content: unknown) =>
      validator.getValidator(clients.tools.find((tool) => tool.name === name)?.outputSchema ?? {})(
        content,
      ).valid;
    expect(check('ask_user_question', { status: 'answered', pending_id: 'p' })).toBe(false);
    expect(check('list_pending_questions', { pending: [] })).toBe(false);
    expect(check('answer_question', { claimed: true })).toBe(false);
    expect(check('wait_for_answer', { error: 'no', code: 'not_found', extra: 1 })).toBe(false);
  });

  it('fits an ask returned waiting, and the wait that collects its answer', async () => {
    const waiting = await call(clients.agent, 'ask_user_question', TWO_QUESTIONS);
    expect(waiting).toMatchObject({ status: 'waiting' });
    const pendingId = waiting.pending_id as string;
    const collecting = callWaiting(clients.agent, 'wait_for_answer', { pending_id: pendingId });
    await call(clients.person, 'answer_question', { pending_id: pendingId, ...ANSWERS });
    expect(await collecting).toMatchObject({ status: 'answered', pending_id: pendingId });
  });

  it('fits an ask left open, a wait that ends open, and one that gets a skip', async () => {
    const open = await callWaiting(clients.agent, 'ask_user_question', TWO_QUESTIONS);
    expect(open).toMatchObject({ status: 'open' });
    const pendingId = open.pending_id as string;
    const args = { pending_id: pendingId, timeout_seconds: 1 };
    expect(await callWaiting(clients.agent, 'wait_for_answer', args)).toMatchObject({
      status: 'open',
    });
    await call(clients.person, 'answer_question', { pending_id: pendingId, rejected: true });
    expect(await call(clients.agent, 'wait_for_answer', args)).toMatchObject({ status: 'skipped' });
  });

  it('fits every tool error, through a client that checks them too', async () => {
    await call(clients.agent, 'ask_user_question', { questions: 'which?' });
    await call(clients.agent, 'wait_for_answer', { pending_id: 'no-such-bundle' });
    await call(clients.person, 'answer_question', { pending_id: 'no-such-bundle', rejected: true });
    await call(clients.person, 'list_pending_questions', { cursor: 'not-a-cursor' });
    for (const name of ['ask_user_question', 'wait_for_answer', 'answer_question']) {
      expect(seen).toContain(`${name}:error`);
    }
    expect(seen).toContain('list_pending_questions:error');
  });

  it('has seen every status each tool returns', () => {
    for (const expected of [
      'ask_user_question:answered',
      'ask_user_question:skipped',
      'ask_user_question:waiting',
      'ask_user_question:open',
      'wait_for_answer:answered',
      'wait_for_answer:skipped',
      'wait_for_answer:open',
      'list_pending_questions:ok',
      'answer_question:answered',
      'answer_question:rejected',
    ]) {
      expect(seen).toContain(expected);
    }
  });
});

/**
 * The agent of a session on one in-process server (SQLite) whose action
 * requests expire after `actionMs`, for the enclosing `describe`.
 */
function actionAgent(actionMs: number) {
  const ADMIN_TOKEN = 'output-schemas-admin-token-0123456789';
  let running: InProcessServer;
  let agent: Client;
  let tools: Tools;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN, {
      userInputDeadlines: { actionMs },
    });
    const { store } = running.server;
    const sessionId = await seedAdminSession(store, 'actions');
    const admin = await firstAdmin(store);
    if (!admin) throw new Error('no admin');
    const token = (await issueToken(store, { kind: 'agent', userId: admin.id, sessionId })).secret;
    agent = new Client({ name: 'output-schemas', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${running.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    tools = (await agent.listTools()).tools;
  });

  afterAll(async () => {
    await agent.close();
    await running.dispose();
  });

  const requestAction = async (url: string) =>
    fits(
      tools,
      'request_user_action',
      (await agent.callTool({
        name: 'request_user_action',
        arguments: { title: 'Connect GitHub', instructions: 'Open the link and sign in', url },
      })) as CallToolResult,
    );

  const answeredIds = new Set<string>();

  /** Answers the action request not answered yet over REST, as the person. */
  async function answerAction(body: Record<string, unknown>): Promise<void> {
    let requestId = '';
    await eventually(async () => {
      const open = await running.api<{ requests: { id: string }[] }>('GET', '/api/v1/user-inputs');
      requestId = open.json.requests.find((request) => !answeredIds.has(request.id))?.id ?? '';
      return requestId !== '';
    });
    answeredIds.add(requestId);
    const answered = await running.api('POST', `/api/v1/user-inputs/${requestId}/respond`, body);
    expect(answered.status, JSON.stringify(answered.json)).toBe(200);
  }

  return { requestAction, answerAction };
}

describe('request_user_action output schema on sqlite', () => {
  describe('answered before it expires', () => {
    // A person's answer on a busy machine still finds the request open.
    const { requestAction, answerAction } = actionAgent(60_000);

    it('fits Done and Skip with a reason', async () => {
      const done = requestAction('https://github.com/login');
      await answerAction({ decision: 'done' });
      expect(await done).toMatchObject({ status: 'done' });

      const skipped = requestAction('https://github.com/login');
      await answerAction({ decision: 'skip', reason: 'Not now' });
      expect(await skipped).toMatchObject({ status: 'skipped', reason: 'Not now' });
    });
  });

  describe('left to expire', () => {
    const { requestAction } = actionAgent(1_500);

    it('fits an expiry and a refusal, and every status was seen', async () => {
      expect(await requestAction('https://github.com/login')).toMatchObject({ status: 'expired' });
      await requestAction('javascript:alert(1)');
      for (const status of ['done', 'skipped', 'expired', 'error']) {
        expect(seen).toContain(`request_user_action:${status}`);
      }
    });
  });
});
