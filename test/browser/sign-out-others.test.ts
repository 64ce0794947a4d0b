/**
 * Settings → "Sign out other devices" in Debian's Chromium against a real
 * server: two browsers signed in as one person (a laptop, and a phone left
 * somewhere); the laptop asks in the page, confirms, and is told how many
 * ended; the phone's open tab goes to the signed-out page at once (its
 * events socket closed), while the laptop stays signed in and live.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ARTIFACTS,
  launchChromium,
  signedInPage,
  startWorld,
  type World,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

describe('signing out other devices', () => {
  let world: World;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  async function signedIn(): Promise<Page> {
    const page = await signedInPage(world, browser, undefined, {
      viewport: { width: 1280, height: 900 },
    });
    contexts.push(page.context());
    await live(page);
    return page;
  }

  const live = (page: Page) =>
    page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);

  it("ends the other browser's session after a confirmation; its tab shows the signed-out page", async () => {
    const phone = await signedIn();
    const laptop = await signedIn();
    await laptop.goto(`${world.origin}/settings`);
    await live(laptop);

    const section = laptop.getByTestId('sign-out-others');
    await section.getByRole('button', { name: 'Sign out other devices' }).click();
    const confirm = section.getByTestId('sign-out-others-confirm');
    await confirm.waitFor(WAIT);
    // Nothing ended before the person confirms: the phone is still live.
    await expect(phone.getByTestId('connection').getAttribute('data-state')).resolves.toBe('live');
    await laptop.screenshot({ path: join(ARTIFACTS, 'sign-out-others-confirm.png') });
    await confirm.getByRole('button', { name: 'Sign them out' }).click();

    const result = section.getByTestId('sign-out-others-result');
    await result.getByText('Other devices signed out: 1.', { exact: true }).waitFor(WAIT);
    // The step that had the focus is gone: it is back on the control that opened it.
    await expect
      .poll(() => laptop.evaluate<string | null>(`document.activeElement?.dataset.testid ?? null`))
      .toBe('sign-out-others-start');
    const ended = phone.locator('[data-testid="sign-in"][data-ended="true"]');
    await ended.waitFor(WAIT);
    // The page says where a sign-in may have ended, this way among them.
    await ended.getByText(/from another device/).waitFor(WAIT);
    await expect(phone.getByTestId('offline-banner').count()).resolves.toBe(0);

    // This browser stays signed in, and a reload keeps it so.
    await expect(laptop.getByTestId('account-menu').count()).resolves.toBe(1);
    await laptop.reload();
    await live(laptop);
    await phone.reload();
    await phone.getByTestId('sign-in').waitFor(WAIT);
  });
});
