/**
 * The browser suites borrow their contexts from a pool (`support/context-pool.ts`).
 * What a test leaves in one must not reach the next: these tests leave it
 * everything a test can, and read the next borrower's context.
 */
import { describe, expect, it } from 'vitest';
import { api, launchChromium, useWorld, viaOrigin } from './support/harness.js';

// Options no other suite uses, so the pool's idle contexts of other files are not in the way.
const OPTIONS = { locale: 'en-US', timezoneId: 'Pacific/Chatham' };

describe('the browser suites’ context pool', () => {
  const suite = useWorld();

  it('lends a given-back context again with nothing of its last borrower in it', async () => {
    const { world, browser } = suite;
    const context = await browser.newContext(OPTIONS);
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor();
    await page.evaluate(
      "localStorage.setItem('left', 'behind'); sessionStorage.setItem('left', 'behind')",
    );
    await context.grantPermissions(['notifications']);
    // What a borrower leaves behind, not a route this test waits on.
    // eslint-disable-next-line no-restricted-syntax
    await page.route('**/left-behind', (route) => route.fulfill({ body: 'routed' }));
    const heardByTheLastBorrower: string[] = [];
    page.on('console', (message) => heardByTheLastBorrower.push(message.text()));
    context.on('request', (request) => heardByTheLastBorrower.push(request.url()));
    await context.close();

    const next = await browser.newContext(OPTIONS);
    expect(next).toBe(context);
    const nextPage = await next.newPage();
    expect(nextPage).toBe(page);
    expect(nextPage.url()).toBe('about:blank');
    expect(await next.cookies()).toEqual([]);
    await nextPage.goto(world.origin);
    await nextPage.getByTestId('sign-in').waitFor();
    const left = await nextPage.evaluate<{
      local: unknown;
      session: unknown;
      permission: string;
      routed: string;
    }>(
      `(async () => ({
        local: localStorage.getItem('left'),
        session: sessionStorage.getItem('left'),
        permission: Notification.permission,
        routed: await (await fetch('/left-behind')).text(),
      }))()`,
    );
    expect(left).toMatchObject({ local: null, session: null, permission: 'default' });
    expect(left.routed).not.toBe('routed');
    await nextPage.evaluate("console.log('heard')");
    expect(heardByTheLastBorrower.filter((text) => text === 'heard' || text.endsWith('/'))).toEqual(
      [],
    );
    await next.close();
  });

  it('lends it signed in as a storage state says', async () => {
    const { world, browser } = suite;
    const signIn = await browser.newContext(OPTIONS);
    const page = await signIn.newPage();
    const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    await page.goto(viaOrigin(world, url));
    await page.waitForURL(`${world.origin}/`);
    const state = await signIn.storageState();
    await signIn.close();

    const context = await browser.newContext({ ...OPTIONS, storageState: state });
    expect(context).toBe(signIn);
    const signedIn = await context.newPage();
    await signedIn.goto(world.origin);
    await signedIn.getByTestId('connection').and(signedIn.locator('[data-state="live"]')).waitFor();
    await context.close();
  });

  it('closes for real a context a test changed for good, and lends a new one', async () => {
    const { world, browser } = suite;
    const context = await browser.newContext(OPTIONS);
    await context.addInitScript('window.changedForGood = true');
    const closed = new Promise((done) => context.once('close', done));
    await context.close();
    await closed;

    const next = await browser.newContext(OPTIONS);
    expect(next).not.toBe(context);
    const page = await next.newPage();
    await page.goto(world.origin);
    expect(await page.evaluate('window.changedForGood')).toBeUndefined();
    await next.close();
  });

  it('gives back what a suite still holds when the suite closes its browser', async () => {
    const { browser } = suite;
    const another = await launchChromium();
    const held = await another.newContext(OPTIONS);
    await another.close();
    expect(another.contexts()).toEqual([]);
    const next = await browser.newContext(OPTIONS);
    expect(next).toBe(held);
    await next.close();
  });
});
