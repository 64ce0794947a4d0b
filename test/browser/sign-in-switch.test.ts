/**
 * A sign-in link never silently switches a signed-in browser to another
 * person (login CSRF: a person may send a colleague their own link, and
 * whatever the colleague then answers would be recorded as the sender's
 * decision). In Debian's Chromium against a real server: a fresh browser
 * signs in in one hop; a browser signed in as the admin that opens Bo's link,
 * clicked on another site's page, is asked by name; Stay keeps the admin and
 * leaves Bo's link unspent; Continue makes the browser Bo's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  api,
  freshPage,
  launchChromium,
  startWorld,
  viaOrigin,
  type World,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

/** Another site, such as a chat app, whose page holds the link a colleague sent. */
const CHAT = 'http://chat.example';

describe('a sign-in link in a browser signed in as someone else', () => {
  let world: World;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  async function open(): Promise<Page> {
    const page = await freshPage(browser);
    contexts.push(page.context());
    return page;
  }

  /** Who the page's cookie signs in, as the app's own request would say. */
  const signedInAs = (page: Page) =>
    page.evaluate(async () => {
      const response = await fetch('/api/v1/me');
      return response.ok ? ((await response.json()) as { user: { name: string } }).user.name : null;
    });

  /** Clicks `link` on a page of another site, as a person does in a chat app. */
  async function clickFromChat(page: Page, link: string): Promise<void> {
    await liveRoute(page, `${CHAT}/**`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><a id="link" href="${link}">a link from a colleague</a>`,
      }),
    );
    await page.goto(`${CHAT}/room`);
    await page.click('#link');
  }

  it('signs a fresh browser in in one hop, and asks a signed-in one before switching', async () => {
    const bo = await api<{ sign_in_url: string }>(world, 'POST', '/api/v1/users', { name: 'Bo' });
    const boLink = viaOrigin(world, bo.sign_in_url);

    const page = await open();
    // A fresh browser asks whom it signs in as only once it can be someone: no 401 on the way.
    const refused: string[] = [];
    const asked: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 401) refused.push(response.url());
    });
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/me')) asked.push(new URL(page.url()).pathname);
    });
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.getByTestId('connection').waitFor(WAIT);
    expect(refused).toEqual([]);
    expect(asked).toEqual(['/']);
    expect(await signedInAs(page)).toBe('admin');

    await clickFromChat(page, boLink);
    const ask = page.getByTestId('sign-in-switch');
    await ask.waitFor(WAIT);
    expect(page.url()).toBe(`${world.origin}/sign-in`);
    await expect(ask.locator('#sign-in-switch-body').textContent()).resolves.toBe(
      'You are signed in as admin. Sign in as Bo instead?',
    );
    const stay = ask.getByRole('button', { name: 'Stay as admin' });
    // Stay is the choice a stray Enter makes.
    await expect(page.evaluate('document.activeElement?.dataset.testid')).resolves.toBe(
      'sign-in-switch-stay',
    );
    await stay.click();
    await page.waitForURL(`${world.origin}/`);
    expect(await signedInAs(page)).toBe('admin');

    // Bo's link was not spent: opened again, it asks again, and Continue switches.
    await page.goto(boLink);
    await ask.waitFor(WAIT);
    await ask.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${world.origin}/`);
    expect(await signedInAs(page)).toBe('Bo');

    // Now spent: the page every used link leads to.
    const fresh = await open();
    await fresh.goto(boLink);
    await fresh.waitForURL(`${world.origin}/signed-out?reason=link_invalid`);
  });

  it('signs a browser already signed in as the link’s person in at once, asking nothing', async () => {
    const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const again = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    const page = await open();
    await page.goto(viaOrigin(world, url));
    await page.waitForURL(`${world.origin}/`);
    await clickFromChat(page, viaOrigin(world, again.url));
    await page.waitForURL(`${world.origin}/`);
    expect(await signedInAs(page)).toBe('admin');
    await expect(page.getByTestId('sign-in-switch').count()).resolves.toBe(0);
  });
});
