/**
 * Issue 13 (MCP fixes): the `WWW-Authenticate` challenge of a 401 on `/mcp`
 * and `/api/v1`, on the real server. RFC 6750 §3.1: a request without any
 * credential gets a bare `Bearer` challenge; a request whose bearer token is
 * refused gets `error="invalid_token"`. Then the MCP SDK's own client, as
 * Claude Code (a configured header) and as mcp-remote or Inspector (an OAuth
 * provider) use it: a wrong token ends in a 401 or a failed discovery, never
 * in a parse of the web app's HTML or an authorization redirect.
 *
 * The server reads the same on either dialect, so this runs on SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_TOKEN_CHALLENGE, MISSING_TOKEN_CHALLENGE } from '../../src/wire/index.js';
import { initializeBody } from '../mcp/mcp-harness.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'challenge-admin-token-0123456789';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

describe('401 challenges, on the real server', () => {
  let running: InProcessServer;
  let base: string;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN);
    base = running.server.url;
  });

  afterAll(async () => {
    await running.dispose();
  });

  /** The challenge of one refused request; fails unless it is a 401. */
  async function challengeOf(path: string, headers: Record<string, string>): Promise<string> {
    const response =
      path === '/mcp'
        ? await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { ...MCP_HEADERS, ...headers },
            body: initializeBody('challenge-test'),
          })
        : await fetch(`${base}${path}`, { headers });
    expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
    expect(await response.json()).toEqual({
      error: 'authentication required',
      code: 'unauthorized',
    });
    return response.headers.get('www-authenticate') ?? '(none)';
  }

  for (const path of ['/mcp', '/api/v1/sessions', '/api/v1/pending']) {
    it(`${path}: a bare challenge without a bearer token`, async () => {
      expect(await challengeOf(path, {})).toBe(MISSING_TOKEN_CHALLENGE);
      // Another scheme is not a bearer token (RFC 6750 §3.1: no error code).
      expect(await challengeOf(path, { authorization: 'Basic dXNlcjpwYXNz' })).toBe(
        MISSING_TOKEN_CHALLENGE,
      );
    });

    it(`${path}: invalid_token when the bearer token sent is refused`, async () => {
      for (const authorization of ['Bearer clr_wrong', 'bearer not-a-token', 'Bearer']) {
        expect(await challengeOf(path, { authorization })).toBe(INVALID_TOKEN_CHALLENGE);
      }
    });
  }

  it('a browser cookie that is no session is not a bearer token', async () => {
    expect(await challengeOf('/api/v1/sessions', { cookie: 'clarion_session=clr_gone' })).toBe(
      MISSING_TOKEN_CHALLENGE,
    );
  });

  it("the SDK client with a configured wrong token fails with the server's 401", async () => {
    const client = new Client({ name: 'configured-header', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: 'Bearer clr_wrong' } },
    });
    const refused: unknown = await client.connect(transport).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(401);
    await client.close();
  });

  it('the SDK client with an OAuth provider finds no OAuth here and never redirects', async () => {
    const redirects: URL[] = [];
    const seen: string[] = [];
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:9/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'probe' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: (url) => {
        redirects.push(url);
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => 'verifier',
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      authProvider: provider,
      requestInit: { headers: { Authorization: 'Bearer clr_wrong' } },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        const path = new URL(String(url)).pathname;
        seen.push(`${init?.method ?? 'GET'} ${path} ${response.status}`);
        expect(response.headers.get('content-type') ?? '', path).not.toContain('text/html');
        return response;
      },
    });
    const client = new Client({ name: 'oauth-aware', version: '1.0.0' });
    const refused: unknown = await client.connect(transport).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The old server answered discovery with the app's HTML: a SyntaxError from JSON.parse.
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(SyntaxError);
    expect(redirects).toEqual([]);
    expect(seen[0]).toBe('POST /mcp 401');
    const discovery = seen.filter((line) => line.includes('/.well-known/'));
    expect(discovery.length).toBeGreaterThan(0);
    for (const line of discovery) expect(line).toMatch(/ 404$/);
    await client.close();
  });
});
