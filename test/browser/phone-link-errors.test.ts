/**
 * Settings' phone sign-in says a link that could not be made in the page's
 * language: a lost connection read "Failed to fetch", the browser's English,
 * on a German page. Chromium (Debian's) against a real server.
 */
import { describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('a phone sign-in link that could not be made', () => {
  const suite = useSuite();

  it('says so in the page’s language when the server cannot be reached', async () => {
    const { page } = await suite.desktop({ locale: 'de-DE' });
    await page.goto(`${suite.world.origin}/settings`);
    await page.getByTestId('language-switch').selectOption('de');
    await liveRoute(page, '**/api/v1/auth/sign-in-links', (route) => route.abort());
    await page.getByTestId('phone-sign-in-mint').click();
    const error = page.getByTestId('phone-sign-in').locator('[role="alert"]');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.access.phone.failed.replace('{{error}}', de.failure.network),
    );
  });
});
