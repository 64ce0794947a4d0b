/**
 * Who the page is signed in as, Sign out, and what a tab does when its
 * sign-in ends, in Debian's Chromium against a real server: the header names
 * the person and signs out (by keyboard too, and at phone size, where the
 * account waits behind one button so that the header keeps to two rows in
 * every language); another tab
 * of the same browser goes to the signed-out screen when the server closes
 * its events socket with 1008, and so does the tab of a person an
 * administrator deletes; a person left in no workspace (4403) is told so
 * instead of the page reconnecting in a loop. Each test signs in on its own
 * link: signing out ends that browser session and no other.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ADMIN_TOKEN,
  api,
  ARTIFACTS,
  launchChromium,
  signedInPage,
  startWorld,
  type World,
} from './support/harness.js';
import {
  overflowsHorizontally,
  pauseClock,
  settleRequests,
  WAIT,
} from './support/clarification-pages.js';
import { deviceSettings } from './support/device-settings.js';
import { fakePushManager, UNSUBSCRIBE_HANGING_KEY } from './support/fake-push-manager.js';
import { PUSH_STEP_TIMEOUT_MS, SIGN_OUT_PUSH_WAIT_MS } from '../../web/src/model/push-fault.js';
import { liveRoute } from './support/live-route.js';

const PHONE = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 2,
};

/** How many rows the header's items take: its content's height over its tallest item's. */
function headerRows(page: Page): Promise<number> {
  return page.evaluate<number>(`(() => {
    const header = document.querySelector('.app-header');
    const style = getComputedStyle(header);
    const content = header.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const row = Math.max(...[...header.children].map((item) => item.getBoundingClientRect().height));
    return Math.round((content / row) * 100) / 100;
  })()`);
}

describe('signing out, and a tab whose sign-in ended', () => {
  let world: World;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  /** A browser signed in as `userId` (the admin unless told), live. */
  async function signedIn(
    options: Parameters<Browser['newContext']>[0] = { viewport: { width: 1280, height: 900 } },
    userId?: string,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const page = await signedInPage(world, browser, userId, options);
    contexts.push(page.context());
    await live(page);
    return { context: page.context(), page };
  }

  const live = (page: Page) =>
    page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);

  const endedScreen = (page: Page) =>
    page.locator('[data-testid="sign-in"][data-ended="true"]').waitFor(WAIT);

  async function adminDelete(path: string): Promise<void> {
    const response = await fetch(`${world.clarion.url}${path}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status, path).toBe(204);
  }

  it('names the signed-in person; Sign out ends the session and every tab of it', async () => {
    const me = await api<{ user: { name: string } }>(world, 'GET', '/api/v1/me');
    const { context, page } = await signedIn();
    const other = await context.newPage();
    await other.goto(`${world.origin}/settings`);
    await live(other);

    await expect(page.getByTestId('account-name').textContent()).resolves.toContain(me.user.name);
    // A screen reader hears whose account it is, not a bare name.
    await expect(page.getByTestId('account-name').textContent()).resolves.toContain('Signed in as');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await endedScreen(page);
    await expect(page.getByTestId('account-menu').count()).resolves.toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'signed-out.png'), fullPage: true });

    // The other tab heard the socket close with 1008: no "Reconnecting…" loop.
    await endedScreen(other);
    await expect(other.getByTestId('offline-banner').count()).resolves.toBe(0);
    await expect(other.getByTestId('connection').count()).resolves.toBe(0);

    // The cookie no longer works: a reload stays signed out.
    await page.reload();
    await page.getByTestId('sign-in').waitFor(WAIT);
  });

  it('keeps a phone’s header to two rows in every language, the account behind one button', async () => {
    // A long name, in the language whose words are longest: the button shows a part of it.
    const name = 'Maximiliane Schöneberger-Wittgenstein';
    const person = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', { name });
    const { page } = await signedIn(PHONE, person.user.id);
    const toggle = page.getByTestId('account-toggle');
    const panel = page.locator(`#${(await toggle.getAttribute('aria-controls')) ?? ''}`);
    const focused = () =>
      page.evaluate<string | null | undefined>(
        '(() => document.activeElement?.getAttribute("data-testid"))()',
      );
    // The name stays in sight, and is said as whose account it is.
    await expect(toggle.textContent()).resolves.toContain(name);
    await expect(toggle.textContent()).resolves.toContain('Signed in as');
    await expect(panel.isVisible()).resolves.toBe(false);

    for (const language of ['de', 'ja', 'en']) {
      // Opened by keyboard; the language is the menu's next stop; Escape hands the focus back.
      await toggle.focus();
      await page.keyboard.press('Enter');
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
      await page.keyboard.press('Tab');
      await expect(focused()).resolves.toBe('language-switch');
      await page.getByTestId('language-switch').selectOption(language);
      await expect.poll(() => page.evaluate('document.documentElement.lang')).toBe(language);
      await page.keyboard.press('Escape');
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
      await expect(panel.isVisible()).resolves.toBe(false);
      await expect(focused()).resolves.toBe('account-toggle');
      // Measured against one row (the tallest item in it: a touch target), not in pixels.
      const rows = await headerRows(page);
      expect(rows, language).toBeGreaterThanOrEqual(1);
      expect(rows, language).toBeLessThanOrEqual(2);
      expect(await overflowsHorizontally(page), language).toBe(false);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'header-phone.png') });

    // Its page links in reach; scrolled, the header stays at the top.
    await page.getByTestId('settings-link').click();
    await page.getByTestId('device-notifications').waitFor(WAIT);
    await page.evaluate('window.scrollTo(0, 600)');
    await expect(page.evaluate('window.scrollY')).resolves.toBeGreaterThan(0);
    await expect(page.locator('.app-header').boundingBox()).resolves.toMatchObject({ y: 0 });

    // A press outside closes the menu and leaves the focus on its button, not on the page.
    await toggle.click();
    await expect(panel.isVisible()).resolves.toBe(true);
    await page.getByTestId('device-notifications').click({ position: { x: 4, y: 4 } });
    await expect(panel.isVisible()).resolves.toBe(false);
    await expect(focused()).resolves.toBe('account-toggle');

    // Sign out, in the language chosen last, is the menu's last stop.
    await toggle.focus();
    await page.keyboard.press('Enter');
    const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
    await expect(signOut.isVisible()).resolves.toBe(true);
    const box = await signOut.boundingBox();
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    // Within the screen: the menu hangs from the header's edge wherever its button wrapped to.
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'sign-out-phone.png') });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('sign-out');
    await page.keyboard.press('Enter');
    await endedScreen(page);
  });

  it('keeps the keyboard focus on Sign out while it works and when it fails', async () => {
    const { page } = await signedIn();
    // The server refuses: the page stays signed in and says so.
    await liveRoute(page, '**/api/v1/auth/sign-out', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
    );
    const signOut = page.getByTestId('sign-out');
    await signOut.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('sign-out-failed').waitFor(WAIT);
    // Not lost to the page's body: the next Tab goes on from Sign out, and Enter tries again.
    expect(
      await page.evaluate<string | null | undefined>(
        '(() => document.activeElement?.getAttribute("data-testid"))()',
      ),
    ).toBe('sign-out');
    await page.unroute('**/api/v1/auth/sign-out');
    await page.keyboard.press('Enter');
    await endedScreen(page);
  });

  it('stops this device’s notifications when it signs out', async () => {
    const { context, page } = await signedIn();
    const webPush = async () =>
      (
        await api<{ channels: { kind: string }[] }>(world, 'GET', '/api/v1/notification-channels')
      ).channels.filter((channel) => channel.kind === 'web_push');
    const device = await deviceSettings(context, page, world.origin);
    await device.reads('off');
    await device.turn('on');
    expect(await webPush()).toHaveLength(1);

    // Signed out, the device hears nothing more of this person's items: a phone handed on, or
    // shared, would otherwise go on showing them.
    await page.getByTestId('sign-out').click();
    await endedScreen(page);
    expect(await webPush()).toEqual([]);
    expect(
      await page.evaluate<boolean>(`(async () => {
        const registration = await navigator.serviceWorker.getRegistration('/');
        return (await registration.pushManager.getSubscription()) !== null;
      })()`),
    ).toBe(false);
  });

  it('leaves this device’s notifications on when the sign-out fails', async () => {
    const { context, page } = await signedIn();
    const webPush = async () =>
      (
        await api<{ channels: { kind: string }[] }>(world, 'GET', '/api/v1/notification-channels')
      ).channels.filter((channel) => channel.kind === 'web_push');
    const device = await deviceSettings(context, page, world.origin);
    await device.reads('off');
    await device.turn('on');
    expect(await webPush()).toHaveLength(1);

    // The server cannot end the sign-in (its storage refuses): the page stays signed in, and says
    // so. Nothing else changed: the device still hears of this person's items.
    await liveRoute(page, '**/api/v1/auth/sign-out', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
    );
    await page.getByTestId('sign-out').click();
    await page.getByTestId('sign-out-failed').waitFor(WAIT);
    expect(await webPush()).toHaveLength(1);
    expect(
      await page.evaluate<boolean>(`(async () => {
        const registration = await navigator.serviceWorker.getRegistration('/');
        return (await registration.pushManager.getSubscription()) !== null;
      })()`),
    ).toBe(true);

    // Tried again, it signs out, and the device hears nothing more.
    await page.unroute('**/api/v1/auth/sign-out');
    await page.getByTestId('sign-out').click();
    await endedScreen(page);
    expect(await webPush()).toEqual([]);
  });

  it('signs out without waiting on a push service that does not answer', async () => {
    const { context, page } = await signedIn();
    const pushManager = fakePushManager({ unsubscribeHangs: true });
    await (await deviceSettings(context, page, world.origin, pushManager)).turn('on');

    // The channel goes first; then the browser's unsubscribe hangs. The person is signed out
    // after the sign-out's own wait, not after a push step's much longer bound. The page's
    // clock stops, and the test moves it through the wait instead of waiting it out.
    await page.clock.install();
    await pauseClock(page);
    await page.getByTestId('sign-out').click();
    // The wait is said on the button, to the eye and to a screen reader alike.
    await expect.poll(() => page.getByTestId('sign-out').textContent(), WAIT).toBe('Signing out…');
    // Asked to unsubscribe, the browser hangs: the sign-out's wait, set before that, now runs.
    await expect
      .poll(() => page.evaluate(`sessionStorage.getItem('${UNSUBSCRIBE_HANGING_KEY}')`), WAIT)
      .not.toBeNull();
    const ended = page.locator('[data-testid="sign-in"][data-ended="true"]');
    await page.clock.runFor(SIGN_OUT_PUSH_WAIT_MS - 1_000);
    await expect(ended.count()).resolves.toBe(0);
    await expect(page.getByTestId('sign-out').textContent()).resolves.toBe('Signing out…');
    // Well before a push step's bound (PUSH_STEP_TIMEOUT_MS) runs out on the page's clock.
    await page.clock.runFor(1_000);
    await ended.waitFor({ timeout: PUSH_STEP_TIMEOUT_MS - 5_000 });
  });

  it('a deleted person’s open tab goes to the signed-out screen', async () => {
    const carol = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'carol',
    });
    const { page } = await signedIn(undefined, carol.user.id);
    await adminDelete(`/api/v1/users/${carol.user.id}`);
    await endedScreen(page);
    await expect(page.getByTestId('offline-banner').count()).resolves.toBe(0);
  });

  it('a person left in no workspace is told so, not reconnected in a loop', async () => {
    const dave = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'dave',
    });
    const workspace = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Dave’s team' },
    );
    const members = `/api/v1/workspaces/${workspace.workspace.id}/members`;
    await api(world, 'POST', members, { user_id: dave.user.id });
    const { page } = await signedIn(undefined, dave.user.id);
    await page.clock.install();
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));

    await adminDelete(`${members}/${dave.user.id}`);
    const banner = page.getByTestId('no-workspace-banner');
    await banner.waitFor(WAIT);
    await expect(banner.textContent()).resolves.toContain('no longer a member of any workspace');
    // Longer than the first backoffs, on the page's clock, which the test moves instead of
    // waiting: the page opened no socket meanwhile.
    await page.clock.runFor(3_000);
    await settleRequests(page);
    expect(sockets).toEqual([]);
    await expect(page.getByTestId('offline-banner').count()).resolves.toBe(0);

    // Added back, Try again reconnects and the banner goes.
    await api(world, 'POST', members, { user_id: dave.user.id });
    await banner.getByRole('button', { name: 'Try again' }).click();
    await live(page);
    await banner.waitFor({ state: 'detached', ...WAIT });
  });
});
