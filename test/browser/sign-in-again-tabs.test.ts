/**
 * A person who signs in again in a browser where they are signed in already
 * (a new link opened in another tab) ends the session the browser's cookie
 * named: a copy of that cookie kept elsewhere signs in nobody. In Debian's
 * Chromium against a real server: a page open meanwhile hears its events
 * socket close for that ended session, finds the browser still signed in as
 * the same person, and carries on live, never showing the signed-out screen.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, EVENTS_SOCKET, freshPage, useWorld, viaOrigin } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { SESSION_COOKIE_NAME } from '../support/browser-sign-in.js';
import { EVENTS_CLOSE_CREDENTIAL_REVOKED } from '../../src/wire/constants.js';

describe('a page open while another tab signs the same person in again', () => {
  const suite = useWorld();

  const live = (page: Page) =>
    page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);

  async function sessionCookie(page: Page): Promise<string> {
    const cookies = await page.context().cookies();
    const value = cookies.find((cookie) => cookie.name === SESSION_COOKIE_NAME)?.value;
    if (value === undefined) throw new Error('no session cookie');
    return value;
  }

  it('carries on as that person, and the replaced cookie signs in nobody', async () => {
    const { world, browser } = suite;
    const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const first = await freshPage(browser);
    const closes: number[] = [];
    await first.routeWebSocket(EVENTS_SOCKET, (page) => {
      page.connectToServer().onClose((code) => {
        if (code !== undefined) closes.push(code);
        void page.close(code === undefined ? {} : { code });
      });
    });
    await first.goto(viaOrigin(world, url));
    await first.waitForURL(`${world.origin}/`);
    await live(first);
    const replaced = await sessionCookie(first);

    const again = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const second = await first.context().newPage();
    await second.goto(viaOrigin(world, again.url));
    await second.waitForURL(`${world.origin}/`);
    await live(second);
    expect(await sessionCookie(second)).not.toBe(replaced);

    const me = (cookie: string) =>
      fetch(`${world.clarion.url}/api/v1/me`, {
        headers: { cookie: `${SESSION_COOKIE_NAME}=${cookie}` },
      });
    expect((await me(replaced)).status).toBe(401);
    expect((await me(await sessionCookie(second))).status).toBe(200);

    await expect.poll(() => closes, WAIT).toContain(EVENTS_CLOSE_CREDENTIAL_REVOKED);
    await live(first);
    await expect(first.getByTestId('sign-in').count()).resolves.toBe(0);
    await expect(first.getByTestId('account-menu').count()).resolves.toBe(1);
    await first.context().close();
  }, 120_000);
});
