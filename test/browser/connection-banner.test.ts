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
});
