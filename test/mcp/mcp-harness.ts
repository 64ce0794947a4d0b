/**
 * Clarion's `/mcp` on a real HTTP server (127.0.0.1, ephemeral port) over a
 * real database, reached by the SDK's own `Client` with real bearer tokens.
 * Built on the clarification harness: the same store, service and test
 * runtime, plus REST respond behind the real bearer authentication.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { afterEach, beforeEach, expect } from 'vitest';
import {
  registerMcpRoute,
  type McpEndpoint,
  type McpRouteDeps,
} from '../../src/agents/mcp/index.js';
import type { Principal } from '../../src/auth/principal.js';
import type { RepeatingTimers } from '../../src/support/index.js';
import { issueToken } from '../../src/auth/tokens.js';
import type { ClarificationBudgets } from '../../src/clarification/index.js';
import { createTokenHolderResolver, mountApiAccess } from '../../src/http/auth.js';
import { registerClarificationRoutes } from '../../src/http/clarification-routes.js';
import type { AppEnv } from '../../src/http/env.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  addWorkspaceMember,
  createSession,
  createUser,
  setSessionState,
  startTurn,
  type Driver,
  type SessionRecord,
} from '../../src/store/index.js';
import { clarificationHarness, type Harness } from '../support/clarification-harness.js';

export interface McpHarness {
  h: Harness;
  url: URL;
  endpoint: McpEndpoint;
  /** A second session of the same task, with its own agent token. */
  otherSession: SessionRecord;
  tokens: {
    agent: string;
    otherAgent: string;
    member: string;
    colleague: string;
    outsider: string;
  };
  colleague: Principal;
  /** A connected SDK client; closed by `dispose`. */
  connect(token: string, name?: string): Promise<Client>;
  /** Calls a tool as the SDK does, with per-call options. */
  call(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<Client['callTool']>[2],
  ): Promise<CallToolResult>;
  /** POST /api/v1/clarification/:id/respond with a bearer token. */
  respond(pendingId: string, body: unknown, token: string): Promise<Response>;
  dispose(): Promise<void>;
}

export async function mcpHarness(
  driver: Driver,
  options: {
    progressIntervalMs?: number;
    budgets?: Partial<ClarificationBudgets>;
    /** Passed to the route as they are: session quotas, clock, sweep timer, the no-progress bound, sessions kept in the store. */
    route?: Pick<
      McpRouteDeps,
      'sessionLimits' | 'nowMs' | 'timers' | 'callWithoutProgressMs' | 'sharedSessions'
    >;
  } = {},
): Promise<McpHarness> {
  const h = await clarificationHarness(driver, options.budgets ? { budgets: options.budgets } : {});
  const { store } = h;
  const member = h.principals.member as Extract<Principal, { kind: 'user' }>;
  const outsider = h.principals.outsider as Extract<Principal, { kind: 'user' }>;
  const colleagueUser = await createUser(store, { name: 'colleague' });
  await addWorkspaceMember(store, {
    workspaceId: h.seeded.task.workspace_id,
    userId: colleagueUser.id,
    role: 'member',
  });
  const otherSession = await createSession(store, {
    taskId: h.seeded.task.id,
    agentProfile: 'demo',
  });
  await startTurn(store, { sessionId: otherSession.id, taskId: h.seeded.task.id });
  await setSessionState(store, otherSession.id, 'running');

  const issue = async (request: Parameters<typeof issueToken>[1]) =>
    (await issueToken(store, request)).secret;
  const tokens = {
    agent: await issue({ kind: 'agent', userId: member.userId, sessionId: h.seeded.session.id }),
    otherAgent: await issue({ kind: 'agent', userId: member.userId, sessionId: otherSession.id }),
    member: await issue({ kind: 'user', userId: member.userId }),
    colleague: await issue({ kind: 'user', userId: colleagueUser.id }),
    outsider: await issue({ kind: 'user', userId: outsider.userId }),
  };

  const app = new Hono<AppEnv>();
  const endpoint = registerMcpRoute(app, {
    store,
    clarification: h.service,
    resolveHolder: createTokenHolderResolver({ store }),
    logger: silentLogger,
    ...(options.progressIntervalMs === undefined
      ? {}
      : { progressIntervalMs: options.progressIntervalMs }),
    ...options.route,
  });
  mountApiAccess(app, { store });
  registerClarificationRoutes(app, { clarification: h.service });

  const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const clients: Client[] = [];

  return {
    h,
    url,
    endpoint,
    otherSession,
    tokens,
    colleague: { kind: 'user', userId: colleagueUser.id, name: 'Test user', isAdmin: false },
    async connect(token, name = 'clarion-test-client') {
      const client = new Client({ name, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async call(client, name, args, callOptions) {
      const result = await client.callTool(
        { name, arguments: args },
        CallToolResultSchema,
        callOptions,
      );
      return result as CallToolResult;
    },
    respond: (pendingId, body, token) =>
      fetch(new URL(`/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    async dispose() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await h.dispose();
    },
  };
}

/**
 * A fresh harness for each test of the enclosing `describe`, disposed after
 * it. The object returned is refilled before each test, so a suite keeps one
 * `m` and no test sees another's database, server or clients.
 */
export function mcpHarnessPerTest(
  driver: Driver,
  options: Parameters<typeof mcpHarness>[1] = {},
): McpHarness {
  const m = {} as McpHarness;
  let made: McpHarness | undefined;
  beforeEach(async () => {
    made = await mcpHarness(driver, options);
    Object.assign(m, made);
  });
  afterEach(async () => {
    await made?.dispose();
    made = undefined;
  });
  return m;
}

/**
 * A tool call as an agent that keeps long calls alive makes it: progress
 * resets the SDK's own timeout, and `withinMs` bounds the whole call, so a
 * result within it came from the server, not a timeout.
 */
export function callWithin(
  client: Client,
  withinMs: number,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: () => undefined,
    resetTimeoutOnProgress: true,
    signal: AbortSignal.timeout(withinMs),
  }) as Promise<CallToolResult>;
}

/** The structured content of a successful tool result; throws on a tool error. */
export function structured(result: CallToolResult): Record<string, unknown> {
  if (result.isError === true) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  const content = result.structuredContent;
  if (!content) throw new Error('no structured content');
  const text = result.content[0];
  // The text copy must say exactly what the structured content says.
  if (text?.type !== 'text' || JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(content)) {
    throw new Error('text copy differs from structured content');
  }
  return content;
}

/** The text of a tool error; throws when the call succeeded. */
export function toolErrorText(result: CallToolResult): string {
  if (result.isError !== true) throw new Error(`expected a tool error: ${JSON.stringify(result)}`);
  const text = result.content[0];
  return text?.type === 'text' ? text.text : '';
}

/** A raw JSON-RPC `initialize` body, for tests that speak to `/mcp` without the SDK. */
/** The repeating timer of the idle sweep, fired by hand. */
export function manualTimers(): RepeatingTimers & { fire(): void } {
  const callbacks: (() => void)[] = [];
  return {
    every(_ms, callback) {
      callbacks.push(callback);
      return { cancel: () => callbacks.splice(callbacks.indexOf(callback), 1) };
    },
    setTimeout: () => ({ cancel: () => undefined }),
    fire: () => {
      for (const callback of callbacks) callback();
    },
  };
}

export function initializeBody(clientName: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: clientName, version: '1.0.0' },
    },
  });
}

/**
 * Whether the person reads the question detached (`GET
 * /api/v1/clarification/:id` with the member's token); it must still be open.
 */
export async function readsDetached(
  m: Pick<McpHarness, 'url' | 'tokens'>,
  pendingId: string,
): Promise<boolean> {
  const url = new URL(`/api/v1/clarification/${encodeURIComponent(pendingId)}`, m.url);
  const reply = await fetch(url, { headers: { authorization: `Bearer ${m.tokens.member}` } });
  expect(reply.status).toBe(200);
  const view = (await reply.json()) as { detached: boolean; active: boolean };
  expect(view.active).toBe(true);
  return view.detached;
}

/** The member cancels the question over REST, as the web app's Cancel does. */
export function cancelAsPerson(
  m: Pick<McpHarness, 'url' | 'tokens'>,
  pendingId: string,
): Promise<Response> {
  const url = new URL(`/api/v1/clarification/${encodeURIComponent(pendingId)}/cancel`, m.url);
  return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${m.tokens.member}` } });
}

/** A JSON-RPC POST as an MCP client sends it, outside any session unless `sessionId` names one. */
function postRaw(m: McpHarness, token: string, body: string, sessionId?: string) {
  return fetch(m.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(sessionId === undefined
        ? {}
        : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }),
    },
    body,
  });
}

/** One raw `initialize`, its body read to the end. */
export async function initialize(m: McpHarness, token: string) {
  const response = await postRaw(m, token, initializeBody('flood'));
  const text = await response.text();
  return {
    status: response.status,
    sessionId: response.headers.get('mcp-session-id'),
    retryAfter: response.headers.get('retry-after'),
    text,
  };
}

/** A request on an existing session; 404 once the session is gone. */
export async function ping(m: McpHarness, token: string, sessionId: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
  const response = await postRaw(m, token, body, sessionId);
  await response.text();
  return response.status;
}
