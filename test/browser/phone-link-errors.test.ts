/**
 * Settings' phone sign-in says a link that could not be made in the page's
 * language: a lost connection read "Failed to fetch", the browser's English,
 * on a German page. Its QR code's library is fetched only once a code is
 * drawn; meanwhile the link is there to copy, in the place it keeps, and when
 * the library cannot be fetched the page says so in its language, within
 * the code's box at any text size, and tries again with the next link. Chromium (Debian's) against a real server.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { de } from '../../web/src/i18n/de.js';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

/** The QR code library's chunk as Vite names it: `/assets/qrcode-<hash>.js`. */
const QR_CHUNK = /\/assets\/qrcode-[\w-]+\.js$/;

/** How far, across and down, the QR code's failure sentence runs past its box, in px. */
const FAILED_SPILL = `(() => {
  const box = document.querySelector('[data-testid=phone-sign-in-qr-failed]');
  return [box.scrollWidth - box.clientWidth, box.scrollHeight - box.clientHeight];
})()`;

const suite = useSuite();

/** The page at /settings, in German. */
async function germanSettings(page: Page): Promise<void> {
  await page.goto(`${suite.world.origin}/settings`);
  await page.getByTestId('language-switch').selectOption('de');
}

describe('a phone sign-in link that could not be made', () => {
  it('says so in the page’s language when the server cannot be reached', async () => {
    const { page } = await suite.desktop({ locale: 'de-DE' });
    await germanSettings(page);
    await liveRoute(page, '**/api/v1/auth/sign-in-links', (route) => route.abort());
    await page.getByTestId('phone-sign-in-mint').click();
    const error = page.getByTestId('phone-sign-in').locator('[role="alert"]');
    await expect(error.textContent(WAIT)).resolves.toBe(
      de.access.phone.failed.replace('{{error}}', de.failure.network),
    );
  });
});

describe('a phone sign-in link’s QR code', () => {
  it('is fetched only when drawn; its link is there to copy, and stays put, whether it comes or not', async () => {
    const { context, page } = await suite.desktop({ locale: 'de-DE' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: suite.world.origin,
    });
    const faults: string[] = [];
    page.on('pageerror', (error) => faults.push(error.message));
    const chunks: string[] = [];
    page.on('request', (request) => {
      if (QR_CHUNK.test(request.url())) chunks.push(request.url());
    });
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await liveRoute(page, QR_CHUNK, async (route) => {
      await released;
      await route.abort('internetdisconnected');
    });
    await germanSettings(page);
    await page.getByTestId('phone-sign-in-mint').waitFor(WAIT);
    expect(chunks).toEqual([]);

    // While the library is on its way the link is shown and copies.
    const refused = page.waitForEvent('requestfailed', (request) => QR_CHUNK.test(request.url()));
    await page.getByTestId('phone-sign-in-mint').click();
    const url = page.getByTestId('phone-sign-in-url');
    await expect(url.inputValue(WAIT)).resolves.toMatch(/\/auth\/sign-in\?token=clr_[\w-]+$/);
    const link = await url.inputValue();
    await expect.poll(() => chunks.length, WAIT).toBe(1);
    const copy = page.getByTestId('phone-sign-in').getByRole('button', { name: de.access.copy });
    await copy.click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(link);
    const top = async () => (await url.boundingBox())?.y;
    const waiting = await top();

    // It does not come: the page says so in German, and the link has not moved.
    release();
    await refused;
    const failed = page.getByTestId('phone-sign-in-qr-failed');
    await expect(failed.textContent(WAIT)).resolves.toBe(de.app.qrFailed);
    await expect(top()).resolves.toBe(waiting);
    await expect(page.getByTestId('phone-sign-in-qr').count()).resolves.toBe(0);
    // With the browser's text at twice its size (WCAG 1.4.4) the sentence stays in its white box.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32 } });
    await expect(page.evaluate(FAILED_SPILL)).resolves.toEqual([0, 0]);
    await cdp.send('Page.setFontSizes', { fontSizes: { standard: 16 } });

    // Back online, the next link's QR code is drawn where the sentence was.
    await page.unroute(QR_CHUNK);
    const fetched = page.waitForResponse((response) => QR_CHUNK.test(response.url()));
    await page.getByTestId('phone-sign-in-mint').click();
    await expect(fetched.then((response) => response.status())).resolves.toBe(200);
    await expect.poll(() => url.inputValue(), WAIT).not.toBe(link);
    const qr = page.getByTestId('phone-sign-in-qr');
    await qr.waitFor(WAIT);
    await expect(
      page.evaluate(
        "(async (image) => (await image.decode(), image.naturalWidth))(document.querySelector('[data-testid=phone-sign-in-qr]'))",
      ),
    ).resolves.toBeGreaterThan(0);
    await expect(failed.count()).resolves.toBe(0);
    await expect(top()).resolves.toBe(waiting);
    expect(faults).toEqual([]);
    await context.close();
  });
});
