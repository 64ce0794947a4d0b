/**
 * A name with nothing in it that shows (a zero-width space, say) is no name:
 * the invite form treats it as empty and offers no Invite, where it sent it
 * and showed the server's bare English "invalid request" on a German page.
 * Debian's Chromium against a real server.
 */
import { describe, expect, it } from 'vitest';
import { signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

describe('the invite form with a blank name', () => {
  const started = useWorld();

  it('offers no Invite for a name of invisible characters', async () => {
    const page = await signedInPage(started.world, started.browser, undefined, {
      locale: 'de-DE',
    });
    await page.getByTestId('language-switch').selectOption('de');
    await page.getByTestId('people-link').click();
    await page.getByTestId('invite').waitFor(WAIT);
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/users')) posted += 1;
    });
    await page.getByTestId('invite-name').fill('\u200b \u2060');
    await page.getByTestId('invite-name').press('Enter');
    await expect(page.getByTestId('invite-submit').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('invite-refused').count()).resolves.toBe(0);
    expect(posted).toBe(0);
    await page.context().close();
  });
});
