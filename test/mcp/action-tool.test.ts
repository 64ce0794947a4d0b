/**
 * `request_user_action`'s refusals as an agent reads them, on the real
 * server with the SDK's client: a request the registry refuses (a link that
 * is not http(s)) and one it can no longer open (closing with the server)
 * come back as the catalogue's tool errors, and nothing is opened. And a
 * call that ends before anyone answers: one the agent cancels is swept at
 * once; one whose connection its living agent closed waits for a turn's end
 * that does not come (the agent was not killed), and is swept at the bound.
 * A client that sends no progress token is answered `waiting` before it
 * would give up, and the request it leaves stays the person's to decide.
 *
 * The mapping does not depend on the dialect, so this runs on SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { completeTurn, currentTurn, firstAdmin, setSessionState } from '../../src/store/index.js';
import type { ServerOptions } from '../../src/server.js';
import type { UserInputView } from '../../src/wire/index.js';
import { armPause, type ArmedPause } from '../../src/support/failpoints.js';
import { eventually } from '../support/clarification-harness.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';
import { toolErrorText } from './mcp-harness.js';

const ADMIN_TOKEN = 'action-tool-admin-token-0123456789';

const ACTION = { title: 'Connect GitHub', instructions: 'Open the link and sign in' };

/** The real server and a client holding the agent token of a seeded session. */
async function serveAgent(options: ServerOptions = {}, betweenTurns = false) {
  const running = await startInProcessServer('sqlite', ADMIN_TOKEN, options);
  const { store } = running.server;
  const sessionId = await seedAdminSession(store, 'action');
  if (betweenTurns) {
    // Its turn ended and the session is idle: no turn is running when the agent asks.
    const turn = await currentTurn(store, sessionId);
    if (turn) await completeTurn(store, turn.id);
    await setSessionState(store, sessionId, 'idle');
  }
  const admin = await firstAdmin(store);
  if (!admin) throw new Error('no admin');
  const token = (await issueToken(store, { kind: 'agent', userId: admin.id, sessionId })).secret;
  const agent = new Client({ name: 'action-tool-test', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${running.server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return { running, agent, sessionId };
}

describe('request_user_action refusals on the real server', () => {
  let running: InProcessServer;
  let agent: Client;

  beforeEach(async () => {
    ({ running, agent } = await serveAgent());
  });

  afterEach(async () => {
    await agent.close();
    await running.dispose();
  });

  const ask = async (url: string) =>
    (await agent.callTool({
      name: 'request_user_action',
      arguments: { ...ACTION, url },
    })) as CallToolResult;

  it('refuses a link that is not http(s) as invalid_request, naming the problem', async () => {
    const refused = await ask('javascript:alert(1)');
    expect(toolErrorText(refused)).toBe('url must be an http(s) URL');
    expect(refused.structuredContent).toEqual({
      error: 'url must be an http(s) URL',
      code: 'invalid_request',
    });
    expect(running.server.turns.userInputs.snapshot()).toEqual([]);
  });

  it('refuses a request while the registry closes as the server shutting down', async () => {
    running.server.turns.userInputs.close();
    const refused = await ask('https://github.com/login');
    expect(toolErrorText(refused)).toBe('the server is shutting down');
    expect(refused.structuredContent).toEqual({
      error: 'the server is shutting down',
      code: 'unavailable',
    });
    expect(running.server.turns.userInputs.snapshot()).toEqual([]);
  });
});

describe('request_user_action whose call ends before anyone answers', () => {
  let running: InProcessServer | undefined;

  afterEach(async () => {
    await running?.dispose();
    running = undefined;
  });

  const settled = (id: string) => running?.server.turns.userInputs.get(id)?.status === 'settled';

  async function asked(agent: Client, signal?: AbortSignal): Promise<UserInputView> {
    const call = agent.callTool({ name: 'request_user_action', arguments: ACTION }, undefined, {
      ...(signal ? { signal } : {}),
    });
    call.catch(() => undefined);
    await eventually(() => (running?.server.turns.userInputs.snapshot().length ?? 0) > 0, 15_000);
    const [request] = running?.server.turns.userInputs.snapshot() ?? [];
    if (!request) throw new Error('the action is awaiting');
    return request;
  }

  it('sweeps at once the call its agent cancelled, whatever the wait for a lost call', async () => {
    const served = await serveAgent({ userInputDeadlines: { lostCallMs: 10 * 60 * 1000 } });
    running = served.running;
    const cancel = new AbortController();
    const request = await asked(served.agent, cancel.signal);
    cancel.abort();
    await eventually(() => settled(request.id), 15_000);
    expect(running.server.turns.userInputs.get(request.id)).toMatchObject({
      settled_reason: 'swept',
    });
    await served.agent.close();
  });

  it('sweeps the call whose connection its living agent closed once the wait for its turn’s end is over', async () => {
    const served = await serveAgent({ userInputDeadlines: { lostCallMs: 1_000 } });
    running = served.running;
    const request = await asked(served.agent);
    await served.agent.close();
    await eventually(() => settled(request.id), 15_000);
    expect(running.server.turns.userInputs.get(request.id)).toMatchObject({
      settled_reason: 'swept',
    });
    const late = await running.api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'done',
    });
    expect(late).toMatchObject({ status: 409, json: { code: 'conflict' } });
  });
});

describe('request_user_action whose turn ends while it opens', () => {
  let running: InProcessServer | undefined;
  let pause: ArmedPause | undefined;

  afterEach(async () => {
    pause?.release();
    pause = undefined;
    await running?.dispose();
    running = undefined;
  });

  it('is between turns: the person’s Done goes to the agent, not after some later turn', async () => {
    const served = await serveAgent({ mcpCallWithoutProgressMs: 300 });
    running = served.running;
    const { store, turns } = running.server;
    const { sessionId } = served;

    // The tool read the turn as running; the turn then ends, as `endTurn` ends it: its row is
    // completed and the session idle, then the registry hears of it, before the request opens.
    pause = armPause('action_tool.after_turn_check', 20_000);
    const call = served.agent.callTool(
      { name: 'request_user_action', arguments: ACTION },
      undefined,
      {
        timeout: 10_000,
      },
    );
    await pause.reached;
    const turn = await currentTurn(store, sessionId);
    if (turn) await completeTurn(store, turn.id);
    await setSessionState(store, sessionId, 'idle');
    turns.userInputs.turnEnded(sessionId, 'normal');
    pause.release();

    const result = (await call) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 'waiting' });
    const requestId = (result.structuredContent as { request_id: string }).request_id;
    const done = await running.api('POST', `/api/v1/user-inputs/${requestId}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    // No turn is running to end: the follow-up is sent as a new message at once.
    await eventually(() => turns.userInputs.get(requestId)?.status === 'settled', 15_000);
    expect(turns.userInputs.get(requestId)).toMatchObject({ settled_reason: 'dispatched' });
    await served.agent.close();
  });
});

describe('request_user_action from a client that sends no progress token', () => {
  let running: InProcessServer | undefined;

  afterEach(async () => {
    await running?.dispose();
    running = undefined;
  });

  it('is answered waiting before the client gives up, and the request stays open past the call’s end', async () => {
    const served = await serveAgent({
      mcpCallWithoutProgressMs: 300,
      userInputDeadlines: { lostCallMs: 200 },
    });
    running = served.running;
    const started = Date.now();
    const result = (await served.agent.callTool(
      { name: 'request_user_action', arguments: ACTION },
      undefined,
      // Far below the SDK's 60 s: the call must not need the client's patience.
      { timeout: 10_000 },
    )) as CallToolResult;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({
      status: 'waiting',
      request_id: expect.any(String) as unknown,
      message: expect.stringContaining('comes to you as a new message') as unknown,
    });
    const requestId = (result.structuredContent as { request_id: string }).request_id;

    // The call and its connection end; the person still has the request, past the lost-call wait.
    await served.agent.close();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(running.server.turns.userInputs.get(requestId)).toMatchObject({ status: 'awaiting' });

    const done = await running.api('POST', `/api/v1/user-inputs/${requestId}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    // Decided by the person, and owed to the agent as its turn's follow-up.
    expect(running.server.turns.userInputs.get(requestId)).toMatchObject({ status: 'armed' });
  });

  it('asked between turns: the person’s Done goes to the agent now, not after some later turn', async () => {
    const served = await serveAgent({ mcpCallWithoutProgressMs: 300 }, true);
    running = served.running;
    const result = (await served.agent.callTool(
      { name: 'request_user_action', arguments: ACTION },
      undefined,
      { timeout: 10_000 },
    )) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 'waiting' });
    // Told truly: no turn is running whose end it would wait for.
    expect(JSON.stringify(result.structuredContent)).not.toContain('once this turn ends');
    const requestId = (result.structuredContent as { request_id: string }).request_id;

    const done = await running.api('POST', `/api/v1/user-inputs/${requestId}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    // No turn is running to end: the follow-up is sent as a new message at once.
    await eventually(
      () => running?.server.turns.userInputs.get(requestId)?.status === 'settled',
      15_000,
    );
    expect(running.server.turns.userInputs.get(requestId)).toMatchObject({
      settled_reason: 'dispatched',
    });
    await served.agent.close();
  });
});
