/**
 * A long question (well inside the limits) is a clamped preview in the
 * inbox, on a phone and on a desktop, so the other waiting items stay in
 * view; the whole text is on the session page the row opens.
 */
import { describe, expect, it } from 'vitest';
import { askingTask, signedInPage } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

const LONG = `Please read all of this first. ${'The migration touches every table and every index. '.repeat(36)}Which way?`;

describe('a long question in the inbox', () => {
  const suite = useSuite();

  for (const [size, options] of [
    ['phone', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
    ['desktop', { viewport: { width: 1280, height: 800 } }],
  ] as const) {
    it(`is clamped to a few lines, and whole on its session page (${size})`, async () => {
      const { world, browser } = suite;
      const created = await askingTask(world, `Long ${size}`, `/ask ${LONG}`);
      const page = await signedInPage(world, browser, undefined, options);
      const selector = `[data-testid="inbox-item"][data-session-id="${created.session.id}"] .inbox-prompt`;
      const prompt = page.locator(selector);
      await prompt.waitFor(WAIT);
      const box = await prompt.boundingBox();
      // The test files have no DOM types: the page reads its own style.
      const lineHeight = Number(
        await page.evaluate(`(() => {
          const style = getComputedStyle(document.querySelector(${JSON.stringify(selector)}));
          return style.lineHeight === 'normal'
            ? Number.parseFloat(style.fontSize) * 1.4
            : Number.parseFloat(style.lineHeight);
        })()`),
      );
      expect(box?.height ?? Infinity).toBeLessThanOrEqual(lineHeight * 3 + 2);

      await prompt.click();
      await page.waitForURL(`**/sessions/${created.session.id}`);
      const whole = page.getByTestId('clarification-overlay').locator('.question-prompt');
      await whole.waitFor(WAIT);
      await expect(whole.textContent()).resolves.toBe(LONG);
      await page.context().close();
    });
  }
});
