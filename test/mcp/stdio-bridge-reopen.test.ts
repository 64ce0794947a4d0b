/**
 * The stdio bridge whose new MCP session was refused (Clarion no longer knew
 * its own, and the token's quota was full): the call that needed it is
 * answered with the refusal, and once a place is free again the bridge's
 * next call opens a new session and goes on, rather than every later call
 * going out without a session and being refused for good.
 */
import { PassThrough } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStdioBridge, type StdioBridge } from '../../src/agents/mcp/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { MCP_SESSION_IDLE_MS } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

/** A call without a progress token returns `waiting` by then, and its ask goes on. */
const CALL_WITHOUT_PROGRESS_MS = 300;

describe.each(DRIVERS)('mcp-stdio bridge refused a new session on %s', (driver) => {
  let m: McpHarness;
  let bridge: StdioBridge | undefined;
  let agent: Client | undefined;
  /** Added to the MCP route's clock, to age its sessions. */
  let agedMs = 0;

  beforeEach(async () => {
    agedMs = 0;
    m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: {
        callWithoutProgressMs: CALL_WITHOUT_PROGRESS_MS,
        sessionLimits: { perPrincipal: 1 },
        nowMs: () => Date.now() + agedMs,
      },
    });
  });

  afterEach(async () => {
    await agent?.close();
    await bridge?.close();
    await m.dispose();
  });

  function listPending(client: Client) {
    return client.callTool(
      { name: 'list_pending_questions', arguments: {} },
      CallToolResultSchema,
      { timeout: 10_000 },
    ) as Promise<CallToolResult>;
  }

  it('opens a new session at its next call once a place is free', async () => {
    const toBridge = new PassThrough();
    const fromBridge = new PassThrough();
    bridge = await runStdioBridge({
      url: m.url,
      token: m.tokens.agent,
      stdin: toBridge,
      stdout: fromBridge,
      logger: silentLogger,
    });
    agent = new SdkClient({ name: 'stdio-agent', version: '1.0.0' });
    await agent.connect(new StdioServerTransport(fromBridge, toBridge));
    expect(structured(await listPending(agent))).toEqual({ pending: [], next_cursor: null });

    // The bridge's session idles out; another client of the token takes the one place and holds an ask.
    agedMs = MCP_SESSION_IDLE_MS + 1_000;
    const other = await m.connect(m.tokens.agent, 'other');
    const asked = structured(await m.call(other, 'ask_user_question', TWO_QUESTIONS));
    expect(asked).toMatchObject({ status: 'waiting' });
    expect(m.endpoint.sessionCount()).toBe(1);

    // No place for the bridge's new session: the call hears why.
    await expect(listPending(agent)).rejects.toThrow(/HTTP 429.*quota_exceeded/s);

    // The other client ends its session: a place is free again.
    const transport = other.transport;
    if (!(transport instanceof StreamableHTTPClientTransport)) throw new Error('not over HTTP');
    await transport.terminateSession();
    expect(m.endpoint.sessionCount()).toBe(0);

    expect(structured(await listPending(agent))).toMatchObject({ next_cursor: null });
    expect(m.endpoint.sessionCount()).toBe(1);
  });
});
