/**
 * On a 390×844 phone the waiting question is a bottom sheet over the page:
 * what it covers (the queue and the composer under it) is inert, so Tab from
 * the sheet never lands on a control the person cannot see, while what it
 * does not cover (the session's header at the page's start) stays usable.
 * Collapsing the question gives the covered controls back. On a desktop the
 * question docks and nothing is inert. Real server, demo agent and Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { askingTask } from './support/harness.js';
import { openSession, sendMessage, useSuite, WAIT } from './support/clarification-pages.js';

/** Where focus is: its test ID, whether it is in the sheet, and whether the page shows it. */
interface Focused {
  id: string | null;
  inSheet: boolean;
  shown: boolean;
}

/** Presses Tab `times` times and reports where focus went each time. */
async function tabThrough(page: Page, times: number): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let n = 0; n < times; n++) {
    await page.keyboard.press('Tab');
    // A string, because this file is compiled without the DOM library.
    seen.push(
      await page.evaluate<Focused>(
        `(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return { id: null, inSheet: false, shown: true };
          const sheet = document.querySelector('[data-testid="pending-sheet"]');
          const r = el.getBoundingClientRect();
          const x = r.left + Math.min(r.width / 2, 8);
          const y = r.top + Math.min(r.height / 2, 8);
          const at = y >= 0 && y < window.innerHeight ? document.elementFromPoint(x, y) : null;
          return {
            id: el.getAttribute('data-testid') ?? el.tagName.toLowerCase(),
            inSheet: sheet.contains(el),
            shown: at !== null && (at === el || el.contains(at)),
          };
        })()`,
      ),
    );
  }
  return seen;
}

const inert = (page: Page, testId: string) =>
  page.evaluate<boolean>(
    `document.querySelector('[data-testid="${testId}"]').closest('[inert]') !== null`,
  );

describe('what the phone’s question sheet covers leaves the tab order', () => {
  const suite = useSuite();

  it('skips the covered queue and composer while the sheet is open, and gives them back when it collapses', async () => {
    const created = await askingTask(suite.world, 'Covered controls', '/ask');
    for (let n = 1; n <= 6; n++) {
      const sent = await sendMessage(suite.world, created.session.id, `queued follow-up ${n}`);
      expect(sent.outcome).toBe('queued');
    }
    const { context, page } = await suite.phone();
    await openSession(suite.world, page, created.session.id);
    await page.getByText('queued follow-up 6', { exact: true }).waitFor(WAIT);
    await page.getByTestId('session-stop').waitFor(WAIT);
    // At the page's start the header shows above the sheet and the queue lies under it.
    await page.evaluate('window.scrollTo(0, 0)');
    // Measured on the frame after the scroll and after rows settle: each is waited for.
    await expect.poll(() => inert(page, 'composer-input'), WAIT).toBe(true);
    await expect.poll(() => inert(page, 'queue'), WAIT).toBe(true);
    await expect(inert(page, 'session-stop')).resolves.toBe(false);
    await page.getByTestId('session-stop').click({ trial: true, timeout: 5_000 });

    // From the sheet's last control onwards, Tab lands only where the person can see.
    await page.getByTestId('clarification-skip').focus();
    const focused = await tabThrough(page, 12);
    const hidden = focused.filter((entry) => !entry.inSheet && !entry.shown);
    expect(hidden, JSON.stringify(focused)).toEqual([]);
    const ids = focused.map((entry) => entry.id);
    for (const covered of ['composer-input', 'queue-edit', 'queue-remove']) {
      expect(ids, covered).not.toContain(covered);
    }
    await suite.shoot(page, 'sheet-cover-phone-open', false);

    // Collapsed, the sheet covers nothing: focus goes to the composer, and Tab reaches the queue.
    await page.getByTestId('clarification-collapse').click();
    await page.getByTestId('clarification-collapsed').waitFor(WAIT);
    await expect.poll(() => inert(page, 'composer-input'), WAIT).toBe(false);
    await expect(
      page.evaluate<number>(`document.querySelectorAll('[inert]').length`),
    ).resolves.toBe(0);
    await expect
      .poll(() =>
        page.evaluate<string | null>(`document.activeElement.getAttribute('data-testid')`),
      )
      .toBe('composer-input');
    await page.getByTestId('clarification-collapsed').focus();
    const after = (await tabThrough(page, 6)).map((entry) => entry.id);
    expect(after).toContain('queue-edit');
    await context.close();
  }, 120_000);

  it('makes nothing inert on a desktop, where the question docks', async () => {
    const created = await askingTask(suite.world, 'Docked question', '/ask');
    await sendMessage(suite.world, created.session.id, 'a queued follow-up');
    const { context, page } = await suite.desktop();
    await openSession(suite.world, page, created.session.id);
    await page.getByText('a queued follow-up', { exact: true }).waitFor(WAIT);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.evaluate(
      'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))',
    );
    await expect(
      page.evaluate<number>(`document.querySelectorAll('[inert]').length`),
    ).resolves.toBe(0);
    await page.getByTestId('clarification-skip').focus();
    const ids = (await tabThrough(page, 8)).map((entry) => entry.id);
    expect(ids).toContain('queue-edit');
    await context.close();
  }, 120_000);
});
