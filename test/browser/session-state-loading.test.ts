/**
 * The session's state chip while the session's own read is on its way says
 * that it is loading, not "Unknown", and names the state once the read
 * arrives; "Unknown" is for a state the server reports that this build does
 * not know. The read is held at the browser's edge, so the wait is certain.
 * Real server and Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { api, type CreatedTask } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

/** The session's own read: its task's list of sessions. */
const SESSIONS_READ = '**/api/v1/tasks/*/sessions';

describe('the session state chip before and after the session is read', () => {
  const suite = useSuite();

  it('says it is loading while the read is held, then the state it reads', async () => {
    const { world } = suite;
    // No prompt: the session stays idle, so no live event brings its state meanwhile.
    const idle = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title: 'Held read' });
    for (const [locale, loading] of [
      ['en-US', 'Loading…'],
      ['de-DE', 'Lädt…'],
      ['ja-JP', '読み込み中…'],
    ] as const) {
      const { context, page } = await suite.desktop({ locale });
      let release = (): void => undefined;
      const released = new Promise<void>((done) => {
        release = done;
      });
      const held: Route[] = [];
      await liveRoute(page, SESSIONS_READ, async (route) => {
        held.push(route);
        await released;
        await route.continue();
      });
      await page.goto(`${world.origin}/sessions/${encodeURIComponent(idle.session.id)}`);
      await expect.poll(() => held.length, WAIT).toBeGreaterThan(0);
      const chip = page.getByTestId('session-state');
      await expect.poll(() => chip.textContent(), WAIT).toBe(loading);
      await expect(chip.getAttribute('aria-busy')).resolves.toBe('true');

      release();
      await chip.and(page.locator('[data-state="idle"]')).waitFor(WAIT);
      await expect(chip.getAttribute('aria-busy')).resolves.toBeNull();
      if (locale === 'en-US') await expect(chip.textContent()).resolves.toBe('Idle');
      await context.close();
    }
  }, 150_000);

  it('says Unknown for a state the server reports that this build does not know', async () => {
    const { world } = suite;
    const idle = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title: 'Newer server' });
    const { context, page } = await suite.desktop();
    await liveRoute(page, SESSIONS_READ, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { sessions: { state: string }[] };
      for (const session of body.sessions) session.state = 'hibernating';
      await route.fulfill({ response, json: body });
    });
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(idle.session.id)}`);
    const chip = page.getByTestId('session-state');
    await chip.and(page.locator('[data-state="hibernating"]')).waitFor(WAIT);
    await expect(chip.textContent()).resolves.toBe('Unknown');
    await context.close();
  });
});
