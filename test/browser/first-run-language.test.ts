/**
 * The empty inbox's "Try the demo" failing says why in the page's language,
 * and says it again in another one chosen afterwards: the sentence is not
 * kept in the language it was first said in. Debian's Chromium against a
 * real server whose inbox is empty.
 */
import { describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import { signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

describe('the empty inbox’s demo failure', () => {
  const started = useWorld();

  it('follows a change of language', async () => {
    const page = await signedInPage(started.world, started.browser, undefined, {
      viewport: { width: 390, height: 844 },
    });
    await page.getByTestId('language-switch').selectOption('de');
    await page.route('**/api/v1/tasks', (route) => route.abort());
    await page.getByTestId('first-run-demo').click();
    const error = page.getByTestId('first-run').getByRole('alert');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.firstRun.demoFailed.replace('{{error}}', de.failure.network),
    );
    await page.getByTestId('language-switch').selectOption('ja');
    await expect
      .poll(() => error.textContent(), WAIT)
      .toBe(ja.firstRun.demoFailed.replace('{{error}}', ja.failure.network));
    await page.context().close();
  });
});
