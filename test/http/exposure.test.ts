/**
 * Exposure (issue 17, finding 9) on the real server over a real socket: a
 * request naming a foreign host is refused on REST, `/mcp` and the events
 * upgrade; `/metrics` and `/debug/vars` answer a loopback peer or an admin's
 * token. Tests run on loopback, so a remote peer is played through the
 * server's `peerAddress` seam; the `Host` header is sent for real.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePeerAddress } from '../../src/http/exposure.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { initializeBody } from '../mcp/mcp-harness.js';

const ADMIN_TOKEN = 'exposure-admin-token-0123456789';

interface RawReply {
  status: number;
  body: string;
  upgraded: boolean;
}

/** One HTTP/1.1 request with the headers exactly as given, `Host` included. */
function raw(
  base: string,
  path: string,
  headers: Record<string, string>,
  init: { method?: string; body?: string } = {},
): Promise<RawReply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path,
      method: init.method ?? 'GET',
      headers,
      setHost: false,
    });
    req.once('error', reject);
    req.once('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: '', upgraded: true });
    });
    req.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => {
        resolve({ status: response.statusCode ?? 0, body, upgraded: false });
      });
    });
    req.end(init.body);
  });
}

const FOREIGN_BODY = { code: 'foreign_host' };

describe.each(DRIVERS)('exposure on %s', (driver) => {
  let running: InProcessServer;
  let url: string;
  let port: string;
  /** The peer address the server sees; `undefined` is the socket's own (loopback). */
  let peer: string | undefined;
  let memberToken: string;

  beforeAll(async () => {
    running = await startInProcessServer(driver, ADMIN_TOKEN, {
      peerAddress: (c) => peer ?? nodePeerAddress(c),
    });
    url = running.server.url;
    port = new URL(url).port;
    const created = await running.api<{ token: string }>('POST', '/api/v1/users', {
      name: 'member',
    });
    memberToken = created.json.token;
  });

  afterAll(async () => {
    await running.dispose();
  });

  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it('refuses a foreign Host on REST, and answers loopback names', async () => {
    const foreign = await raw(url, '/api/v1/me', { host: `rebind.example:${port}`, ...admin });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject(FOREIGN_BODY);

    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await raw(url, '/api/v1/me', { host, ...admin })).status).toBe(200);
    }
    expect((await raw(url, '/metrics', { host: `rebind.example:${port}` })).status).toBe(403);
    expect((await raw(url, '/', { host: `rebind.example:${port}` })).status).toBe(403);
    // Probes address a server by IP; health holds nothing to steal.
    expect((await raw(url, '/healthz', { host: `10.1.2.3:${port}` })).status).toBe(200);
  });

  it('refuses a foreign Host on /mcp', async () => {
    const initialize = initializeBody('exposure-test');
    const headers = {
      ...admin,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const foreign = await raw(
      url,
      '/mcp',
      { ...headers, host: `rebind.example:${port}` },
      { method: 'POST', body: initialize },
    );
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject(FOREIGN_BODY);
    const own = await raw(
      url,
      '/mcp',
      { ...headers, host: `127.0.0.1:${port}` },
      { method: 'POST', body: initialize },
    );
    expect(own.status).toBe(200);
  });

  it('refuses a foreign Host on the events upgrade', async () => {
    const upgrade = {
      ...admin,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': Buffer.from('exposure-test-16').toString('base64'),
    };
    const foreign = await raw(url, '/api/v1/events', {
      ...upgrade,
      host: `rebind.example:${port}`,
    });
    // The adapter answers a refused upgrade with the status and headers only, as it does a 401.
    expect(foreign).toMatchObject({ status: 403, upgraded: false });
    const own = await raw(url, '/api/v1/events', { ...upgrade, host: `127.0.0.1:${port}` });
    expect(own).toMatchObject({ status: 101, upgraded: true });
  });

  it('serves /metrics and /debug/vars to a loopback peer without a token', async () => {
    peer = undefined;
    for (const path of ['/metrics', '/debug/vars']) {
      expect((await fetch(`${url}${path}`)).status).toBe(200);
    }
  });

  it('asks a remote peer, and a proxied loopback one, for an admin token', async () => {
    peer = '203.0.113.9';
    try {
      for (const path of ['/metrics', '/debug/vars']) {
        const anonymous = await fetch(`${url}${path}`);
        expect(anonymous.status).toBe(401);
        expect(await anonymous.json()).toMatchObject({ code: 'unauthorized' });
        const member = await fetch(`${url}${path}`, {
          headers: { authorization: `Bearer ${memberToken}` },
        });
        expect(member.status).toBe(403);
        const bad = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer clr_no' } });
        expect(bad.status).toBe(401);
        expect((await fetch(`${url}${path}`, { headers: admin })).status).toBe(200);
      }
    } finally {
      peer = undefined;
    }
    const proxied = await fetch(`${url}/metrics`, {
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    expect(proxied.status).toBe(401);
    const forwarded = await fetch(`${url}/debug/vars`, {
      headers: { forwarded: 'for=198.51.100.7' },
    });
    expect(forwarded.status).toBe(401);
  });
});
