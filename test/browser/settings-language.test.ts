/**
 * Settings says a failure in the page's language and keeps saying it right:
 * in a language chosen afterwards, and not at all once the list it was
 * about loads after all. Debian's Chromium against a real server.
 */
import { describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import { chooseLanguage, signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('failures on the Settings page', () => {
  const started = useWorld();

  async function settings(): Promise<Awaited<ReturnType<typeof signedInPage>>> {
    const page = await signedInPage(started.world, started.browser, undefined, {
      viewport: { width: 390, height: 844 },
    });
    await chooseLanguage(page, 'de');
    return page;
  }

  it('a token for Claude Code not made is said again in a language chosen afterwards', async () => {
    const page = await settings();
    await liveRoute(page, '**/api/v1/tokens', (route) => route.abort());
    await page.getByTestId('settings-link').click();
    await page.getByTestId('claude-code-mint').click();
    const error = page.getByTestId('claude-code').getByRole('alert');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.access.claudeCode.failed.replace('{{error}}', de.failure.network),
    );
    await chooseLanguage(page, 'ja');
    await expect
      .poll(() => error.textContent(), WAIT)
      .toBe(ja.access.claudeCode.failed.replace('{{error}}', ja.failure.network));
    await page.context().close();
  });

  it('rules that could not be read say so only until they are read', async () => {
    const page = await settings();
    await liveRoute(page, '**/api/v1/consent-rules', (route) => route.abort());
    await page.getByTestId('settings-link').click();
    const section = page.getByTestId('consent-rules');
    const error = section.getByRole('alert');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.consentRules.loadFailed.replace('{{error}}', de.failure.network),
    );
    // Shown again (another window, then back): read again, and this time it answers.
    await page.unroute('**/api/v1/consent-rules');
    const read = page.waitForResponse((response) =>
      response.url().endsWith('/api/v1/consent-rules'),
    );
    await page.evaluate('window.dispatchEvent(new Event("focus"))');
    await read;
    await expect.poll(() => error.count(), WAIT).toBe(0);
    await page.context().close();
  });
});
