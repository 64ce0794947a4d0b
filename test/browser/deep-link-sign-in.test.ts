/**
 * A notification's link to a session, opened in a browser that is not signed
 * in, shows how to sign in; the sign-in link the person then opens (in the
 * same tab, or a new one as a QR scanner does) leads back to that session,
 * not to the inbox. Only a session's own path is taken back, and only once.
 * Chromium (Debian's) against a real server and the demo agent.
 */
import { describe, expect, it } from 'vitest';
import { api, askingTask, freshPage, useWorld, viaOrigin, type World } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

async function mintLink(world: World): Promise<string> {
  const { url } = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
  return viaOrigin(world, url);
}

describe('a deep link opened while signed out', () => {
  const running = useWorld();

  it('leads back to its session after signing in, in the same tab or a new one', async () => {
    const { world, browser } = running;
    const created = await askingTask(world, 'Deep link task', '/ask Which file?');
    const sessionPath = `/sessions/${created.session.id}`;

    const page = await freshPage(browser);
    await page.goto(`${world.origin}${sessionPath}`);
    await page.getByTestId('sign-in').waitFor(WAIT);
    await page.goto(await mintLink(world));
    await page.waitForURL(`${world.origin}${sessionPath}`, WAIT);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);

    // The path is taken once: the next sign-in goes to the inbox.
    await page.goto(await mintLink(world));
    await page.waitForURL(`${world.origin}/`, WAIT);
    await page.context().close();

    const phone = await freshPage(browser, { viewport: { width: 360, height: 740 } });
    await phone.goto(`${world.origin}${sessionPath}`);
    await phone.getByTestId('sign-in').waitFor(WAIT);
    const scanned = await phone.context().newPage();
    await scanned.goto(await mintLink(world));
    await scanned.waitForURL(`${world.origin}${sessionPath}`, WAIT);
    await scanned.getByTestId('clarification-overlay').waitFor(WAIT);
    expect(new URL(scanned.url()).pathname).toBe(sessionPath);
    await phone.context().close();
  });
});
