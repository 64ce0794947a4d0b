/**
 * One queued message open in Edit in two tabs of one browser, in Debian's
 * Chromium against a real server (the tday report's defect 5). Tab 1 saves;
 * tab 2, still holding what it typed, is told the message changed in another
 * tab or window and shown the new text, and cannot save over it until the
 * person chooses. A tab that did not hear of the change (its queue reads held
 * back) saves and is refused the same way, its typed text kept. Tab 1's text
 * stands until someone chooses otherwise. A test-played agent keeps the turn
 * open, so the messages stay queued.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TestHost } from '../support/test-host.js';
import { api, type CreatedTask } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (probe()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

async function queuedTexts(page: Page): Promise<string[]> {
  const texts = await page
    .locator('[data-testid="queue-item"][data-owner="user"] .queue-text')
    .allTextContents();
  return texts.map((text) => text.trim());
}

describe('one queued message edited in two tabs', () => {
  const host = new TestHost();
  const suite = useSuite({ host });

  /** A busy session with two queued messages, open in two tabs of one signed-in browser. */
  async function twoTabs(title: string) {
    const { world } = suite;
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'first',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () => host.prompts.some((p) => p.sessionId === sessionId));
    for (const text of ['original one', 'original two']) {
      await api(world, 'POST', `/api/v1/sessions/${sessionId}/messages`, {
        text,
        admission_key: `${title}-${text}`,
      });
    }
    const { context, page: one } = await suite.desktop();
    const two = await context.newPage();
    for (const page of [one, two]) {
      await page.goto(`${world.origin}/sessions/${sessionId}`);
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
      await expect.poll(() => queuedTexts(page), WAIT).toEqual(['original one', 'original two']);
    }
    const stored = async () =>
      (
        await api<{ items: { text: string }[] }>(
          world,
          'GET',
          `/api/v1/sessions/${sessionId}/queue`,
        )
      ).items.map((item) => item.text);
    return { sessionId, one, two, stored };
  }

  /**
   * Brings `page` in front, where the person acts next. Chromium draws no frames for a tab
   * behind another, so a click there waited up to 2 s for its element to hold still.
   */
  async function inFront(page: Page): Promise<Page> {
    await page.bringToFront();
    return page;
  }

  /** Opens the first queued message in Edit and types `text`. */
  async function typeIn(page: Page, text: string): Promise<void> {
    await inFront(page);
    await page.getByTestId('queue-item').first().getByTestId('queue-edit').click();
    await page.getByTestId('queue-edit-input').fill(text);
  }

  it('tells the second tab the message changed and keeps the first tab’s text', async () => {
    const { one, two, stored } = await twoTabs('Two tabs told');
    await typeIn(one, 'tab ONE version');
    await typeIn(two, 'tab TWO version');

    await (await inFront(one)).getByTestId('queue-save').click();
    await expect.poll(() => queuedTexts(one), WAIT).toEqual(['tab ONE version', 'original two']);

    const told = two.getByTestId('queue-edit-changed');
    await told.waitFor(WAIT);
    await expect(told.textContent()).resolves.toContain(
      'This message was changed in another tab or window',
    );
    await expect(two.getByTestId('queue-edit-current').textContent()).resolves.toBe(
      'tab ONE version',
    );
    // What tab 2 typed is still there, and it cannot be saved over tab 1's text unseen.
    await expect(two.getByTestId('queue-edit-input').inputValue()).resolves.toBe('tab TWO version');
    await expect(two.getByTestId('queue-save').isDisabled()).resolves.toBe(true);
    expect(await stored()).toEqual(['tab ONE version', 'original two']);
    // Tab 1 saved its own text: it is told nothing.
    await expect(one.getByTestId('queue-edit-changed').count()).resolves.toBe(0);

    // The person takes the new text: the editor holds it, and nothing is left to choose.
    await (await inFront(two)).getByTestId('queue-edit-take-current').click();
    await expect(two.getByTestId('queue-edit-input').inputValue()).resolves.toBe('tab ONE version');
    await expect(two.getByTestId('queue-edit-changed').count()).resolves.toBe(0);
    await expect(two.getByTestId('queue-save').isEnabled()).resolves.toBe(true);
    expect(await stored()).toEqual(['tab ONE version', 'original two']);
    await one.context().close();
  });

  it('refuses a save from a tab that had not heard of the change, and keeps what it typed', async () => {
    const { sessionId, one, two, stored } = await twoTabs('Two tabs refused');
    await typeIn(one, 'tab ONE version');
    await typeIn(two, 'tab TWO version');
    // Tab 2 hears of no queue change: its reads of the queue fail while held.
    let held = true;
    await liveRoute(
      two,
      (url) => url.pathname === `/api/v1/sessions/${sessionId}/queue`,
      (route) => (held && route.request().method() === 'GET' ? route.abort() : route.continue()),
    );

    await (await inFront(one)).getByTestId('queue-save').click();
    await expect.poll(() => queuedTexts(one), WAIT).toEqual(['tab ONE version', 'original two']);
    await expect(two.getByTestId('queue-edit-changed').count()).resolves.toBe(0);

    await (await inFront(two)).getByTestId('queue-save').click();
    const told = two.getByTestId('queue-edit-changed');
    await told.waitFor(WAIT);
    await expect(told.textContent()).resolves.toContain(
      'Not saved: this message was changed in another tab or window',
    );
    await expect(two.getByTestId('queue-edit-current').textContent()).resolves.toBe(
      'tab ONE version',
    );
    await expect(two.getByTestId('queue-edit-input').inputValue()).resolves.toBe('tab TWO version');
    expect(await stored()).toEqual(['tab ONE version', 'original two']);

    // The person keeps their text, knowing what it replaces: now it saves, and tab 1 shows it.
    held = false;
    await two.getByTestId('queue-edit-keep-typed').click();
    await expect(two.getByTestId('queue-edit-changed').count()).resolves.toBe(0);
    await two.getByTestId('queue-save').click();
    await two.getByTestId('queue-edit-input').waitFor({ state: 'detached', ...WAIT });
    expect(await stored()).toEqual(['tab TWO version', 'original two']);
    await expect.poll(() => queuedTexts(one), WAIT).toEqual(['tab TWO version', 'original two']);
    await one.context().close();
  });
});
