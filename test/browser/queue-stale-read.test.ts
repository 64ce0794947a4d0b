/**
 * The queue list never goes back to an older read (the exploratory test's
 * "first prompt also under Queued messages", seen once): a list read
 * before a change, whose reply comes after the read that followed the
 * change, must not replace it. Here the page's first read of the queue is
 * held until the queue has been emptied and read again. Real server, demo
 * agent and Chromium; the delay is Playwright's route.
 */
import { describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { api, askingTask } from './support/harness.js';
import { openSession, sendMessage, useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('a late queue read', () => {
  const suite = useSuite();

  it('does not bring back a message the queue no longer holds', async () => {
    const created = await askingTask(suite.world, 'Late queue read', '/ask');
    const sessionId = created.session.id;
    await expect(sendMessage(suite.world, sessionId, 'soon gone')).resolves.toMatchObject({
      outcome: 'queued',
    });

    const { context, page } = await suite.desktop();
    let reads = 0;
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let heldRead = (): void => undefined;
    const held = new Promise<void>((resolve) => (heldRead = resolve));
    await liveRoute(page, `**/api/v1/sessions/${sessionId}/queue`, async (route: Route) => {
      reads++;
      if (reads > 1 || route.request().method() !== 'GET') {
        await route.continue();
        return;
      }
      // The first read is answered now, as the server sees the queue, and delivered late.
      const response = await route.fetch();
      heldRead();
      await released;
      await route.fulfill({ response });
    });
    let emptyReads = 0;
    page.on('response', (response) => {
      if (!response.url().endsWith(`/sessions/${sessionId}/queue`)) return;
      void response
        .json()
        .then((body: { items?: unknown[] }) => {
          if (body.items?.length === 0) emptyReads++;
        })
        .catch(() => undefined);
    });
    await openSession(suite.world, page, sessionId);
    await held;

    await api(suite.world, 'DELETE', `/api/v1/sessions/${sessionId}/queue`);
    // The change moves the session's revision, and the page reads the queue again: empty.
    await expect.poll(() => emptyReads, WAIT).toBeGreaterThan(0);
    release();

    await page.waitForTimeout(1_000);
    await expect(page.getByTestId('queue-item').count()).resolves.toBe(0);
    await context.close();
  }, 120_000);
});
