/**
 * After a sign-in changes the browser's person, a page still open says what
 * is true. In Debian's Chromium against a real server: of two tabs signed in
 * as the admin, one switches to Bo; the other stops (its events socket was
 * closed for the admin's ended sign-in) and says the browser is now Bo's,
 * with a Reload that continues as Bo, rather than asking for a new link.
 * Bo's used link opened again in that browser says Bo is already signed in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, launchChromium, signedInPage, startWorld, type World } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

describe('a page open while another tab switches the browser to another person', () => {
  let world: World;
  let browser: Browser;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  it('says whom the browser signs in now, and reloads as them only when asked', async () => {
    const bo = await api<{ sign_in_url: string }>(world, 'POST', '/api/v1/users', { name: 'Bo' });
    const link = new URL(bo.sign_in_url);
    const boLink = `${world.origin}${link.pathname}${link.search}`;
    const first = await signedInPage(world, browser);
    const second = await first.context().newPage();
    await second.goto(boLink);
    const ask = second.getByTestId('sign-in-switch');
    await ask.waitFor(WAIT);
    await ask.getByRole('button', { name: 'Continue' }).click();
    await second.waitForURL(`${world.origin}/`);

    const notice = first.getByTestId('signed-in-elsewhere');
    await notice.waitFor(WAIT);
    await expect(notice.getByRole('heading').textContent()).resolves.toBe(
      'This browser is now signed in as Bo',
    );
    await expect(first.getByText('Open a new sign-in link').count()).resolves.toBe(0);
    // Nothing switched by itself: the inbox is gone until the person reloads.
    await expect(first.getByTestId('connection').count()).resolves.toBe(0);
    await notice.getByRole('button', { name: 'Reload' }).click();
    await first.getByTestId('connection').and(first.locator('[data-state="live"]')).waitFor();
    await expect(first.getByTestId('signed-in-elsewhere').count()).resolves.toBe(0);

    // Bo's mail link opened a second time: Bo is signed in already, and the inbox comes first.
    await second.goto(boLink);
    await second.waitForURL(`${world.origin}/signed-out?reason=link_invalid`);
    const page = second.getByTestId('link-invalid');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'You are already signed in as Bo',
    );
    const order = await page.locator('a.button, h2').allTextContents();
    expect(order).toEqual(['Continue to the inbox', 'How to get a new link']);
  }, 120_000);
});
