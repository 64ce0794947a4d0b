/**
 * The empty inbox's "Try the demo" failing says why in the page's language,
 * and says it again in another one chosen afterwards: the sentence is not
 * kept in the language it was first said in. Pressed by keyboard, the button
 * keeps the focus while it waits and after it failed. Debian's Chromium against a
 * real server whose inbox is empty.
 */
import { describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import { chooseLanguage, signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

describe('the empty inbox’s demo failure', () => {
  const started = useWorld();

  it('follows a change of language', async () => {
    const page = await signedInPage(started.world, started.browser, undefined, {
      viewport: { width: 390, height: 844 },
    });
    await chooseLanguage(page, 'de');
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/tasks', async (route) => {
      await released;
      await route.abort();
    });
    // Pressed by keyboard: the focus stays on the button while the task starts, and after it failed.
    const demo = page.getByTestId('first-run-demo');
    const focused = () => page.evaluate("document.activeElement?.getAttribute('data-testid')");
    await demo.focus();
    await page.keyboard.press('Enter');
    await demo.and(page.getByText(de.firstRun.demoStarting)).waitFor(WAIT);
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done)))');
    await expect(focused()).resolves.toBe('first-run-demo');
    release();
    const error = page.getByTestId('first-run').getByRole('alert');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.firstRun.demoFailed.replace('{{error}}', de.failure.network),
    );
    await expect(focused()).resolves.toBe('first-run-demo');
    await chooseLanguage(page, 'ja');
    await expect
      .poll(() => error.textContent(), WAIT)
      .toBe(ja.firstRun.demoFailed.replace('{{error}}', ja.failure.network));
    await page.context().close();
  });
});
