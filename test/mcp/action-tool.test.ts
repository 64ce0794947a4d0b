/**
 * `request_user_action`'s refusals as an agent reads them, on the real
 * server with the SDK's client: a request the registry refuses (a link that
 * is not http(s)) and one it can no longer open (closing with the server)
 * come back as the catalogue's tool errors, and nothing is opened.
 *
 * The mapping does not depend on the dialect, so this runs on SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { firstAdmin } from '../../src/store/index.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';
import { toolErrorText } from './mcp-harness.js';

const ADMIN_TOKEN = 'action-tool-admin-token-0123456789';

describe('request_user_action refusals on the real server', () => {
  let running: InProcessServer;
  let agent: Client;

  beforeEach(async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN);
    const { store } = running.server;
    const sessionId = await seedAdminSession(store, 'action');
    const admin = await firstAdmin(store);
    if (!admin) throw new Error('no admin');
    const token = (await issueToken(store, { kind: 'agent', userId: admin.id, sessionId })).secret;
    agent = new Client({ name: 'action-tool-test', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${running.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  });

  afterEach(async () => {
    await agent.close();
    await running.dispose();
  });

  const ask = async (url: string) =>
    (await agent.callTool({
      name: 'request_user_action',
      arguments: { title: 'Connect GitHub', instructions: 'Open the link and sign in', url },
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
