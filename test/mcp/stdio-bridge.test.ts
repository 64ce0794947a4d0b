/**
 * The stdio bridge end to end, without spawning: an SDK client writes
 * newline-delimited JSON-RPC into in-memory streams, the bridge forwards it to
 * the real `/mcp` over HTTP with the agent's token, and answers, progress and
 * errors come back the same way.
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolResultSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStdioBridge, type StdioBridge } from '../../src/agents/mcp/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { DRIVERS } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { MCP_BRIDGE_SESSION_END_MS, MCP_SESSION_IDLE_MS } from '../../src/tunables.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

/** A call without a progress token returns `waiting` by then, and its ask goes on (`bounded-ask.ts`). */
const CALL_WITHOUT_PROGRESS_MS = 300;

describe.each(DRIVERS)('mcp-stdio bridge on %s', (driver) => {
  let m: McpHarness;
  let bridge: StdioBridge | undefined;
  let client: Client | undefined;
  let proxy: TcpProxy | undefined;
  /** Added to the MCP route's clock, to age its sessions. */
  let agedMs = 0;

  beforeEach(async () => {
    agedMs = 0;
    m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: {
        callWithoutProgressMs: CALL_WITHOUT_PROGRESS_MS,
        nowMs: () => Date.now() + agedMs,
      },
    });
  });

  afterEach(async () => {
    await client?.close();
    await bridge?.close();
    await proxy?.close();
    proxy = undefined;
    await m.dispose();
  });

  /** A client whose "stdio" is the bridge's stdin and stdout. */
  async function connectThroughBridge(token: string, url: URL = m.url) {
    const toBridge = new PassThrough();
    const fromBridge = new PassThrough();
    bridge = await runStdioBridge({
      url,
      token,
      stdin: toBridge,
      stdout: fromBridge,
      logger: silentLogger,
    });
    client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    // The SDK's stdio transport is plain newline-delimited JSON-RPC over two streams.
    await client.connect(new StdioServerTransport(fromBridge, toBridge));
    return { client, toBridge };
  }

  it('asks through the bridge and relays progress and the answer', async () => {
    const { client: agent } = await connectThroughBridge(m.tokens.agent);
    expect(agent.getServerVersion()?.name).toBe('clarion');
    const progress: number[] = [];
    const call = agent.callTool(
      { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      CallToolResultSchema,
      {
        onprogress: (notification) => progress.push(notification.progress),
      },
    );
    await eventually(() => m.h.waiters.pendingIdsOf(m.h.seeded.session.id).length > 0);
    const [pendingId] = m.h.waiters.pendingIdsOf(m.h.seeded.session.id);
    await eventually(() => progress.length >= 2);
    await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId ?? '',
      ANSWERS,
    );

    expect(structured((await call) as CallToolResult)).toMatchObject({
      status: 'answered',
      pending_id: pendingId,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    });
  });

  it('answers a waiting call whose connection to Clarion broke, instead of leaving it waiting', async () => {
    proxy = await startTcpProxy({ host: m.url.hostname, port: Number(m.url.port) });
    const viaProxy = new URL(m.url);
    viaProxy.port = String(proxy.port);
    const { client: agent } = await connectThroughBridge(m.tokens.agent, viaProxy);
    let progressed = 0;
    const call = agent.callTool(
      { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      CallToolResultSchema,
      // Far beyond the check below: an error within it came from the bridge, not this timeout.
      {
        onprogress: () => (progressed += 1),
        resetTimeoutOnProgress: true,
        timeout: 60_000,
      },
    );
    const settled = call.then(
      () => 'result',
      (error: unknown) => error,
    );
    // Progress came through: the call's stream is open, and only its result is still to come.
    await eventually(() => progressed > 0);

    // Clarion restarted, or the network dropped: the call's stream ends without its result.
    proxy.resetConnections();

    const outcome = await Promise.race([
      settled,
      new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting')),
    ]);
    expect(outcome).toBeInstanceOf(McpError);
    expect((outcome as McpError).code).toBe(-32000);
    expect((outcome as McpError).message).toMatch(/connection to Clarion ended before it answered/);
  });

  it('names the pending ID of an ask its connection cut, so an answer given meanwhile is collected', async () => {
    proxy = await startTcpProxy({ host: m.url.hostname, port: Number(m.url.port) });
    const viaProxy = new URL(m.url);
    viaProxy.port = String(proxy.port);
    // An agent Clarion does not run: nothing resumes it; it must collect the answer itself.
    const { client: agent } = await connectThroughBridge(m.tokens.member, viaProxy);
    let progressed = 0;
    const call = agent.callTool(
      { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      CallToolResultSchema,
      { onprogress: () => (progressed += 1), resetTimeoutOnProgress: true, timeout: 60_000 },
    );
    const settled = call.then(
      () => undefined,
      (error: unknown) => error,
    );
    // The first progress goes out once the question is written, a moment before its wait is held.
    const held = () => m.h.waiters.sessionIds().flatMap((id) => m.h.waiters.pendingIdsOf(id));
    await eventually(() => progressed > 0 && held().length > 0);
    const [pendingId] = held();
    if (pendingId === undefined) throw new Error('no question held');

    // Clarion restarted mid-wait: the blocking ask never returned its pending ID.
    proxy.resetConnections();
    const cut = await settled;
    expect(cut).toBeInstanceOf(McpError);
    expect((cut as McpError).message).toContain(pendingId);
    expect((cut as McpError).data).toEqual({ pending_id: pendingId });

    // The person answers before the agent is back; the inbox no longer lists the question.
    await m.h.service.respond(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
      ANSWERS,
    );
    const back = await m.connect(m.tokens.member, 'stdio-agent');
    expect(structured(await m.call(back, 'list_pending_questions', {}))).toMatchObject({
      pending: [],
    });
    expect(
      structured(await m.call(back, 'wait_for_answer', { pending_id: pendingId })),
    ).toMatchObject({ status: 'answered', pending_id: pendingId });
  });

  it('ends when stdin ends', async () => {
    const { client: agent, toBridge } = await connectThroughBridge(m.tokens.agent);
    expect((await agent.listTools()).tools).toHaveLength(3);
    toBridge.end();
    await bridge?.closed;
  });

  it('ends within its bound when its client exits and Clarion no longer answers', async () => {
    proxy = await startTcpProxy({ host: m.url.hostname, port: Number(m.url.port) });
    const viaProxy = new URL(m.url);
    viaProxy.port = String(proxy.port);
    const { client: agent, toBridge } = await connectThroughBridge(m.tokens.agent, viaProxy);
    expect((await agent.listTools()).tools).toHaveLength(3);
    // The network to Clarion goes silent: the session's end is sent and never answered.
    proxy.blackhole();
    const started = Date.now();
    toBridge.end();
    await bridge?.closed;
    expect(Date.now() - started).toBeLessThan(MCP_BRIDGE_SESSION_END_MS + 3_000);
  });

  it('ends its MCP session when its client exits, so a question still held reads detached', async () => {
    const { client: agent, toBridge } = await connectThroughBridge(m.tokens.member);
    // No progress token: the call returns `waiting`, and the ask is held for the session.
    const asked = structured(
      (await agent.callTool(
        { name: 'ask_user_question', arguments: TWO_QUESTIONS },
        CallToolResultSchema,
        { timeout: 10_000 },
      )) as CallToolResult,
    );
    expect(asked).toMatchObject({ status: 'waiting' });
    const pendingId = asked.pending_id as string;
    expect(m.h.waiters.has(pendingId)).toBe(true);
    expect(m.endpoint.sessionCount()).toBe(1);

    toBridge.end();
    await bridge?.closed;

    // Nobody can collect the answer through that session now; the person must see that.
    expect(m.endpoint.sessionCount()).toBe(0);
    await eventually(() => !m.h.waiters.has(pendingId));
    await eventually(async () =>
      (await m.h.rows(pendingId)).every((row) => row.metadata.agent_disconnected === true),
    );
  });

  it('opens a new MCP session when Clarion no longer knows its own, and goes on', async () => {
    const { client: agent } = await connectThroughBridge(m.tokens.agent);
    expect((await agent.listTools()).tools).toHaveLength(3);
    // Its session idles out (or its day in the store ends) while the agent does other work.
    agedMs = MCP_SESSION_IDLE_MS + 1_000;
    await m.connect(m.tokens.member);
    expect(m.endpoint.sessionCount()).toBe(1);

    // A stdio client cannot initialize again by itself: the bridge must.
    const listed = await agent.callTool(
      { name: 'list_pending_questions', arguments: {} },
      CallToolResultSchema,
      { timeout: 10_000 },
    );
    expect(structured(listed as CallToolResult)).toEqual({ pending: [], next_cursor: null });
    expect(m.endpoint.sessionCount()).toBe(2);
  });

  it('answers a refused token with a JSON-RPC error instead of hanging', async () => {
    const toBridge = new PassThrough();
    const fromBridge = new PassThrough();
    bridge = await runStdioBridge({
      url: m.url,
      token: 'clr_not-a-token',
      stdin: toBridge,
      stdout: fromBridge,
      logger: silentLogger,
    });
    client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await expect(client.connect(new StdioServerTransport(fromBridge, toBridge))).rejects.toThrow(
      /Clarion refused the request \(HTTP 401\)/,
    );
  });
});
