/**
 * "Sign out other devices": `POST /api/v1/auth/sign-out-others` ends every
 * browser session of the caller but the one it is sent from, says how many
 * ended, and closes their events sockets at once (1008) as a sign-out does:
 * on the replica that ended them and, through the `credentials` wake, on
 * another. Another person's sessions, the caller's personal tokens and its
 * own browser stay. A bearer token has no browser session to keep and is
 * refused as sign-out refuses it. The periodic read of watched tokens is
 * stretched to ten minutes, so only the announcement can close a socket in
 * time. Whole servers: one on SQLite, two replicas on one PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/server.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { bearerApi } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'sign-out-others-admin-0123456789';
const RECHECK_MS = 10 * 60 * 1000;
const CLOSES_WITHIN_MS = 10_000;
const PATH = '/api/v1/auth/sign-out-others';

describe('signing out other devices', { timeout: 60_000 }, () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN, { credentialRecheckMs: RECHECK_MS });
  const serve = (replicaId: string) => replicas.serve(replicaId);

  afterEach(() => replicas.dispose());

  /** A browser signed in on a fresh link for `userId` (the admin's own without one). */
  async function browser(server: RunningServer, userId?: string): Promise<string> {
    const minted = await bearerApi(server.url, ADMIN_TOKEN)<{ url: string }>(
      'POST',
      '/api/v1/auth/sign-in-links',
      userId === undefined ? {} : { user_id: userId },
    );
    expect(minted.status).toBe(201);
    const signedIn = await fetch(`${server.url}/api/v1/auth/sign-in`, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(minted.json.url).searchParams.get('token') }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = /clarion_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1];
    if (cookie === undefined) throw new Error('a sign-in without its cookie');
    return cookie;
  }

  const fromPage = (server: RunningServer, cookie: string) => ({
    origin: server.url,
    cookie: `clarion_session=${cookie}`,
  });

  const signOutOthers = (server: RunningServer, cookie: string) =>
    fetch(`${server.url}${PATH}`, { method: 'POST', headers: fromPage(server, cookie) });

  async function signedIn(server: RunningServer, cookie: string): Promise<boolean> {
    const me = await fetch(`${server.url}/api/v1/me`, { headers: fromPage(server, cookie) });
    return me.status === 200;
  }

  /** A page's subscribed events socket, and the close it will see (or 'open'). */
  async function subscribed(server: RunningServer, cookie: string) {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/events`, {
      headers: fromPage(server, cookie),
    });
    replicas.keep(socket);
    const closed = new Promise<number>((resolve) => {
      socket.on('close', (code) => {
        resolve(code);
      });
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        resolve();
      });
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    return {
      closedWithin: (ms: number) =>
        Promise.race([
          closed,
          new Promise<'open'>((resolve) =>
            setTimeout(() => {
              resolve('open');
            }, ms),
          ),
        ]),
    };
  }

  async function endsTheOthersOnly(here: RunningServer, there: RunningServer): Promise<void> {
    const laptop = await browser(here);
    const phone = await browser(there);
    const tablet = await browser(there);
    const bo = await bearerApi(here.url, ADMIN_TOKEN)<{ user: { id: string } }>(
      'POST',
      '/api/v1/users',
      { name: 'Bo' },
    );
    const bosBrowser = await browser(here, bo.json.user.id);
    const phoneSocket = await subscribed(there, phone);
    const laptopSocket = await subscribed(here, laptop);

    const reply = await signOutOthers(here, laptop);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ ended: 2 });
    // No cookie is touched: this browser stays signed in.
    expect(reply.headers.get('set-cookie')).toBeNull();

    await expect(phoneSocket.closedWithin(CLOSES_WITHIN_MS)).resolves.toBe(1008);
    expect(await signedIn(there, phone)).toBe(false);
    expect(await signedIn(there, tablet)).toBe(false);
    expect(await signedIn(here, laptop)).toBe(true);
    expect(await signedIn(here, bosBrowser)).toBe(true);
    await expect(laptopSocket.closedWithin(500)).resolves.toBe('open');
    // The caller's token was never a browser's: it still works.
    expect((await bearerApi(here.url, ADMIN_TOKEN)('GET', '/api/v1/me')).status).toBe(200);

    // Nothing left to end.
    const again = await signOutOthers(here, laptop);
    expect(await again.json()).toEqual({ ended: 0 });
  }

  it('ends every other browser session of the caller, and their sockets (SQLite)', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    await endsTheOthersOnly(server, server);
  });

  it('closes the sockets on another replica, through the wake (PostgreSQL)', async () => {
    await replicas.open('postgres', { migrated: true });
    const a = await serve('others-a');
    const b = await serve('others-b');
    await endsTheOthersOnly(b, a);
  });

  it('refuses a bearer token, ending nothing, and a page of another site', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const phone = await browser(server);

    const bearer = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bearer.status).toBe(400);
    expect(await bearer.json()).toMatchObject({ code: 'not_a_browser_session' });

    const laptop = await browser(server);
    const foreign = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { ...fromPage(server, laptop), origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await signedIn(server, phone)).toBe(true);
  });
});
