/**
 * The empty inbox's "Try the demo" failing says why in the page's language,
 * and says it again in another one chosen afterwards: the sentence is not
 * kept in the language it was first said in. Pressed by keyboard, the button
 * keeps the focus while it waits and after it failed. A page downloads the
 * words of the languages it shows, and only once it shows them; one whose
 * words do not arrive stays in the language it shows. Debian's Chromium
 * against a real server whose inbox is empty.
 */
import { describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import {
  api,
  chooseLanguage,
  freshPage,
  signedInPage,
  useWorld,
  viaOrigin,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

/** A catalog's chunk as Vite names it: `/assets/de-<hash>.js`. */
const catalogChunk = (language: string) => new RegExp(`/assets/${language}-[\\w-]+\\.js$`);

const started = useWorld();

describe('the empty inbox’s demo failure', () => {
  it('follows a change of language', async () => {
    const page = await signedInPage(started.world, started.browser, undefined, {
      viewport: { width: 390, height: 844 },
    });
    await chooseLanguage(page, 'de');
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await liveRoute(page, '**/api/v1/tasks', async (route) => {
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

describe('a language’s words', () => {
  it('load only once it is shown; the page stays put when they do not come', async () => {
    // Opened in German on a desktop, where the picker is in the header's account panel.
    const page = await freshPage(started.browser, { locale: 'de-DE' });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    const { url } = await api<{ url: string }>(
      started.world,
      'POST',
      '/api/v1/auth/sign-in-links',
      {},
    );
    await page.goto(viaOrigin(started.world, url));
    await page.waitForURL(`${started.world.origin}/`);
    const settingsLink = page.getByTestId('settings-link');
    const picker = page.getByTestId('language-switch');
    await expect(settingsLink.textContent(WAIT)).resolves.toBe(de.settings.title);
    await expect(picker.inputValue()).resolves.toBe('de');
    expect(requested.some((path) => catalogChunk('de').test(path))).toBe(true);
    expect(requested.filter((path) => catalogChunk('ja').test(path))).toEqual([]);

    // Japanese's words do not arrive: the page, its picker and what it remembers stay German.
    await liveRoute(page, catalogChunk('ja'), (route) => route.abort('internetdisconnected'));
    const refused = page.waitForEvent('requestfailed', (request) =>
      catalogChunk('ja').test(request.url()),
    );
    await picker.selectOption('ja');
    await refused;
    await expect(page.getByTestId('language-failed').textContent(WAIT)).resolves.toBe(
      de.app.languageFailed.replace('{{language}}', '日本語'),
    );
    await expect(picker.inputValue()).resolves.toBe('de');
    await expect(settingsLink.textContent()).resolves.toBe(de.settings.title);
    await expect(page.evaluate('document.documentElement.lang')).resolves.toBe('de');
    await expect(page.evaluate("localStorage.getItem('clarion.language')")).resolves.not.toBe('ja');

    // Back online, chosen again: Japanese's words are fetched, then shown.
    await page.unroute(catalogChunk('ja'));
    const fetched = page.waitForResponse((response) => catalogChunk('ja').test(response.url()));
    await picker.selectOption('ja');
    await expect(fetched.then((response) => response.status())).resolves.toBe(200);
    await expect.poll(() => settingsLink.textContent(), WAIT).toBe(ja.settings.title);
    await expect(picker.inputValue()).resolves.toBe('ja');
    await expect(page.getByTestId('language-failed').count()).resolves.toBe(0);
    await page.context().close();
  });
});
