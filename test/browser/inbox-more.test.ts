/**
 * What the inbox says of what waits before it has read it all, in Debian's
 * Chromium against a real server. Until its first reads answer it says it
 * reads: "no questions" and the first-run card would tell a person with work
 * waiting that there is none.
 *
 * The inbox's note that more questions wait than it lists, in Debian's
 * Chromium against a real server: it can appear while the page is open (a
 * reconnect reads a pending list grown past what the inbox reads), and a
 * screen reader hears it then as a sighted person sees it: its text arrives
 * in a live region already in the page, not in one inserted with it, which
 * screen readers do not announce. Reading thousands of questions is left to
 * the model's tests: here every page of the pending list read says more
 * follow.
 */
import { describe, expect, it } from 'vitest';
import type { Route, WebSocketRoute } from 'playwright-core';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { askingTask, EVENTS_SOCKET } from './support/harness.js';
import { liveRoute } from './support/live-route.js';

describe('the inbox saying more questions wait', () => {
  const suite = useSuite();

  it('says it reads, not that nothing waits, until its first reads answer', async () => {
    const created = await askingTask(suite.world, 'Held back', '/ask');
    const { context, page } = await suite.desktop();
    let release = () => {};
    const released = new Promise<void>((done) => {
      release = done;
    });
    const held = async (route: Route) => {
      await released;
      await route.continue();
    };
    await liveRoute(page, '**/api/v1/pending*', held);
    await liveRoute(page, '**/api/v1/tasks*', held);
    await page.goto(`${suite.world.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await page.getByTestId('inbox-reading').waitFor(WAIT);
    await page.getByTestId('tasks-reading').waitFor(WAIT);
    expect(await page.getByTestId('inbox-empty').count()).toBe(0);
    expect(await page.getByTestId('first-run').count()).toBe(0);
    expect(await page.getByTestId('tasks-empty').count()).toBe(0);

    release();
    const item = page.getByTestId('inbox-item').filter({ hasText: 'Held back' });
    await item.waitFor(WAIT);
    await page.getByRole('link', { name: created.task.title }).first().waitFor(WAIT);
    expect(await page.getByTestId('inbox-reading').count()).toBe(0);
    expect(await page.getByTestId('tasks-reading').count()).toBe(0);
    await context.close();
  });

  it('announces the note when a reconnect finds more waiting than it lists', async () => {
    await askingTask(suite.world, 'One of many', '/ask');
    const { context, page } = await suite.desktop();
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      socket.connectToServer();
      sockets.push(socket);
    });
    await page.goto(`${suite.world.origin}/`);
    await page.getByTestId('inbox-item').first().waitFor(WAIT);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    expect(await page.getByTestId('inbox-more').count()).toBe(0);
    // The live regions a screen reader watches now, before the note.
    await page.evaluate(
      `window.regionsBefore = [...document.querySelectorAll('[role="status"], [role="alert"], [aria-live]')]`,
    );

    await liveRoute(page, '**/api/v1/pending*', async (route) => {
      const url = new URL(route.request().url());
      url.searchParams.delete('cursor');
      const response = await route.fetch({ url: url.toString() });
      const body = (await response.json()) as Record<string, unknown>;
      await route.fulfill({ response, json: { ...body, next_cursor: 'more' } });
    });
    await sockets[0]?.close({ code: 1012, reason: 'test drops the socket' });
    const note = page.getByTestId('inbox-more');
    await note.waitFor(WAIT);
    await expect(note.textContent()).resolves.toContain('More questions are waiting');
    expect(
      await page.evaluate<boolean>(`(() => {
        const note = document.querySelector('[data-testid="inbox-more"]');
        return window.regionsBefore.some((region) => region.isConnected && region.contains(note));
      })()`),
    ).toBe(true);
    await context.close();
  });
});
