/**
 * A session longer than one page, in Debian's Chromium against a real
 * server: it opens at its newest rows, scrolled to the end (what a person
 * opens it for, including the question an agent waits on); "Show earlier
 * messages" at the top loads older pages from the keyboard, keeping the row
 * the reader was looking at where it was; and live rows keep arriving at the
 * end. The transcript is seeded through the store, not thousands of calls.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { en } from '../../web/src/i18n/en.js';
import { TRANSCRIPT_PAGE_ROWS } from '../../web/src/model/transcript-window.js';
import { seedTranscript } from '../support/seed.js';
import {
  agentReplies,
  agentSaid,
  sendMessage,
  until,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { api, type CreatedTask } from './support/harness.js';

/** Two pages and a half of older rows before the live exchange. */
const SEEDED = 2 * TRANSCRIPT_PAGE_ROWS + 50;

function shownLine(page: Page, n: number) {
  return page.getByTestId('transcript').getByText(`seeded ${String(n)}`, { exact: true });
}

/** Whether the newest row is on screen, above the sticky dock. */
async function atEnd(page: Page): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const rows = document.querySelectorAll('[data-testid="message"]');
    const dock = document.querySelector('.session-dock');
    if (rows.length === 0 || !dock) return false;
    const newest = rows[rows.length - 1].getBoundingClientRect();
    return newest.bottom > 0 && newest.bottom <= dock.getBoundingClientRect().top + 1;
  })()`);
}

describe('a transcript longer than a page', () => {
  const suite = useSuite();

  it('opens at the newest rows, loads earlier ones on demand in place, and appends live ones', async () => {
    const created = await api<CreatedTask>(suite.world, 'POST', '/api/v1/tasks', {
      title: 'all day',
      prompt: 'newest words',
    });
    const sessionId = created.session.id;
    await until(
      () => agentReplies(suite.world, sessionId),
      (replies) => replies.length >= 1,
    );
    await seedTranscript(suite.world.clarion.store, sessionId, SEEDED, { prefix: 'seeded' });

    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/sessions/${sessionId}`);
    await agentSaid(page, 'You said: newest words').waitFor(WAIT);
    await shownLine(page, SEEDED - 1).waitFor(WAIT);
    // The newest page only: the oldest rows are not in the page, and it is scrolled to its end.
    expect(await shownLine(page, 0).count()).toBe(0);
    expect(await page.getByTestId('message').count()).toBeLessThanOrEqual(TRANSCRIPT_PAGE_ROWS);
    await expect.poll(() => atEnd(page), WAIT).toBe(true);

    const earlier = page.getByTestId('transcript-earlier');
    await expect.poll(() => earlier.textContent(), WAIT).toBe(en.session.earlier);
    // The reader scrolls up to the oldest row shown, and asks from the keyboard.
    const firstShown = page.getByTestId('message').first();
    const firstText = await firstShown.locator('.message-content').textContent();
    await earlier.scrollIntoViewIfNeeded();
    const before = (await page.getByText(firstText ?? '', { exact: true }).boundingBox())?.y;
    await earlier.focus();
    await page.keyboard.press('Enter');
    // The page before holds seeded rows from about 50 on (the live rows take a few of the first).
    const oldestAfterOne = 100;
    await shownLine(page, oldestAfterOne).waitFor(WAIT);
    const after = (await page.getByText(firstText ?? '', { exact: true }).boundingBox())?.y;
    // The rows came in above: the one the reader saw first stayed where it was.
    expect(before).toBeDefined();
    expect(Math.abs((after ?? 0) - (before ?? 0))).toBeLessThanOrEqual(2);
    expect(await atEnd(page)).toBe(false);
    // A screen reader, its focus still on the button, hears that earlier rows came in above.
    const told = page.getByTestId('transcript').getByRole('status');
    await expect.poll(() => told.textContent(), WAIT).toBe(en.session.earlierLoaded);
    // The region is kept when the button goes: one made anew with its words is not heard.
    await page.evaluate(
      `window.earlierRegion = document.querySelector('[data-testid="transcript"] [role="status"]')`,
    );

    await earlier.focus();
    await page.keyboard.press('Enter');
    await shownLine(page, 0).waitFor(WAIT);
    await expect.poll(() => earlier.count(), WAIT).toBe(0);
    // The button went with the last page: focus stays in the transcript, not lost to the page.
    expect(
      await page.evaluate<string | null | undefined>(
        '(() => document.activeElement?.getAttribute("data-testid"))()',
      ),
    ).toBe('transcript');
    await expect.poll(() => told.textContent(), WAIT).toBe(en.session.earlierLoadedAll);
    expect(await page.evaluate<boolean>('window.earlierRegion.isConnected')).toBe(true);
    const seen = await page.getByTestId('transcript').locator('.message-content').allTextContents();
    const seededSeen = seen.filter((text) => text.startsWith('seeded '));
    expect(seededSeen).toEqual(
      Array.from({ length: SEEDED }, (_, index) => `seeded ${String(index)}`),
    );

    // A live exchange still lands at the end, and the page follows it there.
    await sendMessage(suite.world, sessionId, 'later words');
    await agentSaid(page, 'You said: later words').waitFor(WAIT);
    await expect.poll(() => atEnd(page), WAIT).toBe(true);
    await context.close();
  });
});
