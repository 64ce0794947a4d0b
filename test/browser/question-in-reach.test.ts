/**
 * The question stays in reach in a long session (issue 15): the header and
 * the dock stick, on a phone the question is a bottom sheet, opening a
 * session shows the pending question whole, and a digit never picks an
 * option the person cannot see; the composer sends on Enter, the tab title
 * counts what waits, and an unknown session offers nothing to type into.
 * Real server, demo agent and Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, askingTask, type CreatedTask, type World } from './support/harness.js';
import {
  openSession,
  option,
  recordRequests,
  scrollToStart,
  sendMessage,
  transcript,
  twentyExchanges,
  until,
  useSuite,
} from './support/clarification-pages.js';

/** Twenty exchanges with the demo agent, then its three-question bundle. */
async function longSession(world: World): Promise<CreatedTask> {
  const created = await twentyExchanges(world, 'A long conversation');
  await sendMessage(world, created.session.id, '/ask-multi');
  await until(
    () => api<{ bundles: { session_id: string }[] }>(world, 'GET', '/api/v1/pending'),
    (pending) => pending.bundles.some((bundle) => bundle.session_id === created.session.id),
  );
  return created;
}

interface Box {
  top: number;
  bottom: number;
  viewport: number;
}

function boxOf(page: Page, testId: string): Promise<Box> {
  return page.evaluate<Box>(
    `(() => {
      const rect = document.querySelector('[data-testid="${testId}"]').getBoundingClientRect();
      return { top: rect.top, bottom: rect.bottom, viewport: window.innerHeight };
    })()`,
  );
}

function headerTop(page: Page): Promise<number> {
  return page.evaluate<number>("document.querySelector('.app-header').getBoundingClientRect().top");
}

describe('the question stays in reach', () => {
  const suite = useSuite();

  it('shows the whole question on opening a 20-exchange session, on desktop and phone, and keeps it there while scrolling', async () => {
    const created = await longSession(suite.world);
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await (size === 'phone' ? suite.phone() : suite.desktop());
      await openSession(suite.world, page, created.session.id);
      await page
        .getByTestId('transcript')
        .getByText('exchange 20: and then?', { exact: true })
        .waitFor();

      const shown = await boxOf(page, 'clarification-overlay');
      expect(shown.top).toBeGreaterThanOrEqual(0);
      expect(shown.bottom).toBeLessThanOrEqual(shown.viewport + 1);

      // Back to the start of the conversation: the header and the question stay on screen.
      await expect(scrollToStart(page)).resolves.toBeGreaterThan(0);
      expect(await headerTop(page)).toBe(0);
      const scrolled = await boxOf(page, 'clarification-overlay');
      expect(scrolled.top).toBeGreaterThanOrEqual(0);
      expect(scrolled.bottom).toBeLessThanOrEqual(scrolled.viewport + 1);
      await suite.shoot(page, `question-in-reach-${size}`, false);
      await context.close();
    }
  });

  it('lets a digit pick only an option that is on screen', async () => {
    const created = await askingTask(suite.world, 'Digits need sight', '/ask-multi');
    const { context, page } = await suite.desktop();
    // A short window: the overlay scrolls within itself and the first options leave the screen.
    await page.setViewportSize({ width: 1280, height: 420 });
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    const hidden = await page.evaluate<boolean>(
      `(() => {
        const frame = document.querySelector('[data-testid="clarification-overlay"]');
        frame.scrollTop = frame.scrollHeight;
        frame.focus({ preventScroll: true });
        const label = [...frame.querySelectorAll('.option-label')].find((l) => l.textContent === 'Hosted');
        return label.getBoundingClientRect().top < frame.getBoundingClientRect().top;
      })()`,
    );
    expect(hidden).toBe(true);

    const answered = page.getByTestId('clarification-answered');
    await page.keyboard.press('1');
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('false');
    await expect(answered.textContent()).resolves.toMatch(/^0\b/);

    await option(page, 'Hosted').scrollIntoViewIfNeeded();
    await page.getByTestId('clarification-overlay').focus();
    await page.keyboard.press('1'); // picks Hosted and moves on to the second question
    await expect.poll(() => answered.textContent()).toMatch(/^1\b/);
    expect(recorded.responds).toEqual([]);
    await context.close();
  });

  it('sends the composer on Enter and keeps Shift+Enter for a new line', async () => {
    const created = await api<CreatedTask>(suite.world, 'POST', '/api/v1/tasks', {
      title: 'Enter sends',
    });
    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/sessions/${created.session.id}`);
    const composer = page.getByTestId('composer-input');
    await composer.click();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    await expect(composer.inputValue()).resolves.toBe('first line\nsecond line');
    await page.keyboard.press('Enter');
    await until(
      () => transcript(suite.world, created.session.id),
      (messages) => messages.some((message) => message.content === 'first line\nsecond line'),
    );
    await expect.poll(() => composer.inputValue(), { timeout: 30_000 }).toBe('');
    await context.close();
  });

  it('says an unknown session is not available, with no composer to type into', async () => {
    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/sessions/no-such-session`);
    await page.getByTestId('session-missing').waitFor();
    await expect(page.getByTestId('session-missing').textContent()).resolves.toContain(
      'This session is not available.',
    );
    await expect(page.getByTestId('composer-input').count()).resolves.toBe(0);
    await context.close();
  });

  it('counts what waits in the tab title', async () => {
    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/`);
    const before = await api<{ bundles: unknown[] }>(suite.world, 'GET', '/api/v1/pending');
    await askingTask(suite.world, 'Counted', '/ask');
    const expected = `(${String(before.bundles.length + 1)}) Clarion`;
    await page.waitForFunction(`document.title === ${JSON.stringify(expected)}`);
    await context.close();
  });
});
