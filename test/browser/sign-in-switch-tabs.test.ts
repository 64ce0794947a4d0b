/**
 * After a sign-in changes the browser's person, a page still open says what
 * is true. In Debian's Chromium against a real server: of two tabs signed in
 * as the admin, one switches to Bo; the other stops (its events socket was
 * closed for the admin's ended sign-in) and says the browser is now Bo's,
 * with a Reload that continues as Bo, rather than asking for a new link.
 * Bo's used link opened again in that browser says Bo is already signed in.
 * A page that has not heard of the switch yet (its socket's close held back)
 * and skips a question is refused, and nothing is decided as Bo. A page
 * whose socket opens again after the switch is closed before it hears any of
 * Bo's events.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import {
  api,
  askingTask,
  EVENTS_SOCKET,
  freshPage,
  signedInPage,
  useWorld,
  viaOrigin,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { EVENTS_CLOSE_SESSION_CHANGED } from '../../src/wire/constants.js';

describe('a page open while another tab switches the browser to another person', () => {
  const suite = useWorld();

  /** Another tab of `page`'s browser opens `link` and confirms the switch it asks about; that tab. */
  async function switchInAnotherTab(page: Page, link: string): Promise<Page> {
    const { world } = suite;
    const second = await page.context().newPage();
    await second.goto(link);
    const ask = second.getByTestId('sign-in-switch');
    await ask.waitFor(WAIT);
    await ask.getByRole('button', { name: 'Continue' }).click();
    await second.waitForURL(`${world.origin}/`);
    return second;
  }

  /** `page` says the browser is now `name`'s; its notice. */
  async function toldSignedInAs(page: Page, name: string): Promise<Locator> {
    const notice = page.getByTestId('signed-in-elsewhere');
    await notice.waitFor(WAIT);
    await expect(notice.getByRole('heading').textContent()).resolves.toBe(
      `This browser is now signed in as ${name}`,
    );
    return notice;
  }

  it('says whom the browser signs in now, and reloads as them only when asked', async () => {
    const { world, browser } = suite;
    const bo = await api<{ sign_in_url: string }>(world, 'POST', '/api/v1/users', { name: 'Bo' });
    const link = new URL(bo.sign_in_url);
    const boLink = `${world.origin}${link.pathname}${link.search}`;
    const first = await signedInPage(world, browser);
    const second = await switchInAnotherTab(first, boLink);

    const notice = await toldSignedInAs(first, 'Bo');
    await expect(first.getByText('Open a new sign-in link').count()).resolves.toBe(0);
    // Nothing switched by itself: the inbox is gone until the person reloads.
    await expect(first.getByTestId('connection').count()).resolves.toBe(0);
    await notice.getByRole('button', { name: 'Reload' }).click();
    await first.getByTestId('connection').and(first.locator('[data-state="live"]')).waitFor();
    await expect(first.getByTestId('signed-in-elsewhere').count()).resolves.toBe(0);

    // Bo's mail link opened a second time: Bo is signed in already, and the inbox comes first.
    await second.goto(boLink);
    await second.waitForURL(`${world.origin}/signed-out?reason=link_invalid`);
    const page = second.getByTestId('link-invalid');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'You are already signed in as Bo',
    );
    const order = await page.locator('a.button, h2').allTextContents();
    expect(order).toEqual(['Continue to the inbox', 'How to get a new link']);
  }, 120_000);

  it('refuses a decision from a page that has not heard of the switch, and names Bo', async () => {
    const { world, browser } = suite;
    const created = await askingTask(world, 'Deploy on Friday?', '/ask');
    const bo = await api<{ sign_in_url: string }>(world, 'POST', '/api/v1/users', {
      name: 'Bo Two',
    });
    const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const first = await freshPage(browser);
    // The admin's socket closes at the switch; this page never hears it, so only its next
    // request can tell it the cookie signs in someone else.
    await first.routeWebSocket(EVENTS_SOCKET, (socket) => {
      socket.connectToServer().onClose(() => undefined);
    });
    await first.goto(viaOrigin(world, url));
    await first.waitForURL(`${world.origin}/`);
    await first.getByTestId('connection').and(first.locator('[data-state="live"]')).waitFor();
    await first.goto(`${world.origin}/sessions/${created.session.id}`);
    await first.getByTestId('clarification-overlay').waitFor(WAIT);

    await switchInAnotherTab(first, viaOrigin(world, bo.sign_in_url));

    // The person goes back to the first tab (Chromium draws no frames for a tab behind another,
    // and each click below waited up to 2 s for one); coming back reads nothing again.
    await first.bringToFront();
    await first.getByTestId('clarification-skip').click();
    await first.getByTestId('clarification-skip-confirm-yes').click();
    await first.getByTestId('send-now').click();
    await toldSignedInAs(first, 'Bo Two');
    // Nothing was decided, as the admin or as Bo: the question still waits.
    const pending = await api<{ bundles: { session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    expect(pending.bundles.map((bundle) => bundle.session_id)).toContain(created.session.id);
    await first.context().close();
  }, 120_000);

  it('closes a socket opened again after the switch before it hears Bo’s events', async () => {
    const { world, browser } = suite;
    const bo = await api<{ sign_in_url: string }>(world, 'POST', '/api/v1/users', {
      name: 'Bo Three',
    });
    const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const first = await freshPage(browser);
    // What each of the page's sockets heard from the server, and how the server closed it. The
    // admin's socket closes at the switch (1008); the page hears 1001 instead, as if the server
    // had restarted at that moment, and opens its socket again with the cookie, now Bo's.
    const sockets: { heard: string[]; closed?: number }[] = [];
    await first.routeWebSocket(EVENTS_SOCKET, (page) => {
      const socket: { heard: string[]; closed?: number } = { heard: [] };
      sockets.push(socket);
      const server = page.connectToServer();
      server.onMessage((message) => {
        socket.heard.push(String(message));
        page.send(message);
      });
      server.onClose((code) => {
        socket.closed = code;
        void page.close({ code: code === 1008 ? 1001 : code });
      });
    });
    await first.goto(viaOrigin(world, url));
    await first.waitForURL(`${world.origin}/`);
    await first.getByTestId('connection').and(first.locator('[data-state="live"]')).waitFor();

    await switchInAnotherTab(first, viaOrigin(world, bo.sign_in_url));

    await toldSignedInAs(first, 'Bo Three');
    const switched = sockets.findIndex((socket) => socket.closed === 1008);
    expect(switched).toBeGreaterThanOrEqual(0);
    const reopened = sockets.slice(switched + 1);
    expect(reopened.map((socket) => socket.closed)).toEqual([EVENTS_CLOSE_SESSION_CHANGED]);
    expect(reopened[0]?.heard).toEqual([]);
    await first.context().close();
  }, 120_000);
});
