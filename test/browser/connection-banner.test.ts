/**
 * Losing the live connection is said in a banner, and the banner goes once
 * the app has reconnected on its own. The socket is really closed (Playwright
 * routes it to the real server and then drops it), not simulated in the page.
 */
import { describe, expect, it } from 'vitest';
import type { WebSocketRoute } from 'playwright-core';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { EVENTS_SOCKET } from './support/harness.js';

describe('the connection banner', () => {
  const suite = useSuite();

  it('shows while the events socket is down and goes when it is back', async () => {
    const { context, page } = await suite.desktop();
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      socket.connectToServer();
      sockets.push(socket);
    });
    await page.goto(`${suite.world.origin}/`);
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor(WAIT);
    await expect(page.getByTestId('offline-banner').count()).resolves.toBe(0);

    await sockets[0]?.close({ code: 1012, reason: 'test drops the socket' });
    await page.getByTestId('offline-banner').waitFor(WAIT);
    await expect(page.getByTestId('offline-banner').textContent()).resolves.toContain(
      'Connection lost',
    );

    await page.locator('[data-testid="connection"][data-state="live"]').waitFor(WAIT);
    await page.getByTestId('offline-banner').waitFor({ state: 'detached', ...WAIT });
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    await context.close();
  });

  it('connects again when the page comes back after a while or the browser is online again', async () => {
    const { context, page } = await suite.phone();
    // The page's clock is the test's: a hidden minute passes at once.
    await page.clock.install();
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      socket.connectToServer();
      sockets.push(socket);
    });
    await page.goto(`${suite.world.origin}/`);
    const live = page.locator('[data-testid="connection"][data-state="live"]');
    await live.waitFor(WAIT);
    const show = (state: 'hidden' | 'visible') =>
      page.evaluate(`(() => {
        Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);

    // Away a few seconds: the socket very likely lived through it.
    await show('hidden');
    await page.clock.fastForward(5_000);
    await show('visible');
    await page.waitForTimeout(500);
    expect(sockets).toHaveLength(1);

    // Away a minute (a phone that slept): its socket may look open and hear nothing.
    await show('hidden');
    await page.clock.fastForward(60_000);
    await show('visible');
    await expect.poll(() => sockets.length, WAIT).toBe(2);
    await live.waitFor(WAIT);

    await page.evaluate(`window.dispatchEvent(new Event('online'))`);
    await expect.poll(() => sockets.length, WAIT).toBe(3);
    await live.waitFor(WAIT);
    await context.close();
  });
});
