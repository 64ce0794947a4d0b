/**
 * Issue 13 (MCP fixes): what the real server answers for a path it has no
 * route or file for. OAuth discovery probes (`/.well-known/…`, also under
 * `/mcp`), unknown API paths and missing files get the catalogue's 404 JSON,
 * never the web app's HTML, so an OAuth-aware MCP client (mcp-remote,
 * Inspector) learns there is no OAuth here instead of parsing a page. Paths
 * without an extension stay the app's client routes.
 *
 * The server reads the same on either dialect, so this runs on SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyOf, OUTCOMES } from '../../src/wire/index.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'not-found-admin-token-0123456789';
const NOT_FOUND_BODY = errorBodyOf({ code: 'not_found' });

describe('paths nothing answers, on the real server', () => {
  let running: InProcessServer;
  let base: string;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN);
    base = running.server.url;
  });

  afterAll(async () => {
    await running.dispose();
  });

  async function expectNotFoundJson(path: string, init: RequestInit = {}): Promise<void> {
    const response = await fetch(`${base}${path}`, init);
    expect(response.status, path).toBe(OUTCOMES.not_found.status);
    expect(response.headers.get('content-type') ?? '', path).toContain('application/json');
    expect(await response.json(), path).toEqual(NOT_FOUND_BODY);
  }

  it('answers OAuth and other discovery probes with 404 JSON', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/openid-configuration',
      '/mcp/.well-known/oauth-protected-resource',
      '/mcp/.well-known/openid-configuration',
    ]) {
      await expectNotFoundJson(path);
      await expectNotFoundJson(path, { headers: { authorization: 'Bearer clr_wrong' } });
    }
  });

  it('answers unknown API paths with 404 JSON once the caller is known', async () => {
    const admin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    await expectNotFoundJson('/api/v1/no-such-thing', admin);
    await expectNotFoundJson('/api/v1/sessions/x/no-such-thing', admin);
    await expectNotFoundJson('/api/v2/anything');
    await expectNotFoundJson('/api/unknown');
  });

  it('answers a missing file and dynamic client registration with 404 JSON', async () => {
    for (const path of ['/favicon.ico', '/robots.txt', '/assets/missing.js', '/x/y.json']) {
      await expectNotFoundJson(path);
    }
    // Where the MCP SDK registers an OAuth client when discovery found nothing.
    await expectNotFoundJson('/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
  });

  it('still serves the app for client routes, whatever their name', async () => {
    for (const path of ['/', '/settings', '/answer/0197-abc', '/sessions/abc/x', '/well-known']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
    }
  });
});
