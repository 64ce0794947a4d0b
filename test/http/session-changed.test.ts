/**
 * A browser's tabs share its cookie. A page of the web app names whom it
 * signed in as (`SIGNED_IN_AS_HEADER`); after another tab signs the browser
 * in as someone else, the page's requests are refused with 409
 * `session_changed`, naming who the cookie signs in now, and change nothing:
 * a decision meant as one person's is never recorded as another's. The
 * page's events socket, which names the person in its address, is closed
 * with 4409 before it hears anything. A request without the header (a
 * script), or with a bearer token, is not a page's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  EVENTS_CLOSE_SESSION_CHANGED,
  SIGNED_IN_AS_HEADER,
  SIGNED_IN_AS_PARAM,
} from '../../src/wire/index.js';
import { browserSignIn, sendTo, SESSION_COOKIE_NAME } from '../support/browser-sign-in.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { waitingItems, type WaitingItems } from '../support/waiting-items.js';

const TOKEN = 'session-changed-admin-token-0123456789';

describe('a page whose cookie signs in someone else since', () => {
  let running: InProcessServer;
  let pendingOf: WaitingItems['pendingOf'];
  let startTask: WaitingItems['startTask'];
  let admin: { id: string; name: string };
  let bo: { id: string; name: string };
  let boCookie: string;

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', TOKEN);
    ({ startTask, pendingOf } = waitingItems(running.api));
    admin = (await running.api<{ user: { id: string; name: string } }>('GET', '/api/v1/me')).json
      .user;
    const created = await running.api<{ user: { id: string; name: string } }>(
      'POST',
      '/api/v1/users',
      { name: 'Bo' },
    );
    bo = created.json.user;
    // Bo is a member of the admin's workspace, so Bo could decide the admin's question.
    const [workspace] = (
      await running.api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces')
    ).json.workspaces;
    await running.api('POST', `/api/v1/workspaces/${workspace?.id ?? ''}/members`, {
      user_id: bo.id,
    });
    const link = await running.api<{ url: string }>('POST', '/api/v1/auth/sign-in-links', {
      user_id: bo.id,
    });
    const url = running.server.url;
    boCookie = (await browserSignIn(sendTo(url), link.json.url, url)) ?? '';
    expect(boCookie).not.toBe('');
  });

  afterAll(async () => {
    await running.dispose();
  });

  /** A page's same-origin request with the browser's cookie (now Bo's). */
  function fromPage(path: string, signedInAs: string | undefined, body?: unknown) {
    return fetch(`${running.server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        cookie: `${SESSION_COOKIE_NAME}=${boCookie}`,
        origin: running.server.url,
        ...(signedInAs === undefined ? {} : { [SIGNED_IN_AS_HEADER]: signedInAs }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  it("refuses the admin's page a skip, names Bo, and decides nothing", async () => {
    const { sessionId } = await startTask('/ask');
    const bundle = await pendingOf(sessionId);
    const path = `/api/v1/clarification/${bundle.pending_id}/respond`;

    const refused = await fromPage(path, admin.id, { rejected: true });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      code: 'session_changed',
      error: expect.stringContaining('signed in as someone else') as unknown,
      details: { signed_in_as: { id: bo.id, name: bo.name } },
    });
    // Still waiting: nothing was recorded, as the admin or as Bo.
    expect((await pendingOf(sessionId)).pending_id).toBe(bundle.pending_id);

    // Bo's own page, with the same cookie, decides as Bo.
    const own = await fromPage(path, bo.id, { rejected: true });
    expect(own.status).toBe(200);
  });

  it('refuses the page a read too, and its sign-out', async () => {
    const read = await fromPage('/api/v1/pending', admin.id);
    expect(read.status).toBe(409);
    const signOut = await fromPage('/api/v1/auth/sign-out', admin.id, {});
    expect(signOut.status).toBe(409);
    // Bo is still signed in.
    expect((await fromPage('/api/v1/me', bo.id)).status).toBe(200);
  });

  it('leaves a request that names nobody, and a bearer token, as they were', async () => {
    expect((await fromPage('/api/v1/me', undefined)).status).toBe(200);
    const bearer = await fetch(`${running.server.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${TOKEN}`, [SIGNED_IN_AS_HEADER]: bo.id },
    });
    expect(bearer.status).toBe(200);
  });

  /** The page's events socket, with the browser's cookie: every frame it hears, and its close. */
  async function pageSocket(headers: Record<string, string>, signedInAs?: string) {
    const address = new URL('/api/v1/events', running.server.url.replace(/^http/, 'ws'));
    if (signedInAs !== undefined) address.searchParams.set(SIGNED_IN_AS_PARAM, signedInAs);
    const socket = new WebSocket(address, { headers });
    const heard: { type: string }[] = [];
    socket.on('message', (data: Buffer) =>
      heard.push(JSON.parse(data.toString()) as { type: string }),
    );
    const closed = new Promise<number>((done) => socket.once('close', done));
    await new Promise((opened, failed) => {
      socket.once('open', opened);
      socket.once('error', failed);
    });
    socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    return { socket, heard, closed };
  }

  const asTheBrowser = () => ({
    cookie: `${SESSION_COOKIE_NAME}=${boCookie}`,
    origin: running.server.url,
  });

  it("closes the admin's page's events socket with 4409 before it hears anything", async () => {
    const page = await pageSocket(asTheBrowser(), admin.id);
    const stillOpen = new Promise((done) =>
      setTimeout(() => {
        done('still open');
      }, 10_000).unref(),
    );
    expect(await Promise.race([page.closed, stillOpen])).toBe(EVENTS_CLOSE_SESSION_CHANGED);
    expect(page.heard).toEqual([]);
  });

  it("subscribes Bo's own page's socket, and a bearer's whatever it names", async () => {
    for (const [headers, named] of [
      [asTheBrowser(), bo.id],
      [{ authorization: `Bearer ${TOKEN}` }, bo.id],
    ] as const) {
      const page = await pageSocket(headers, named);
      await expect.poll(() => page.heard.map((frame) => frame.type)).toContain('subscribed');
      page.socket.close();
      await page.closed;
    }
  });
});
