/**
 * Settings, People and the first run say a failed load or action in the
 * page's language: a lost connection read "Failed to fetch" (the browser's
 * English) and a refusal the server's English inside a German sentence. Each
 * section against a connection that fails, and against the server's own
 * refusal where one is in reach (the personal token limit). Chromium
 * (Debian's) against a real server.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { MAX_TOKENS_PER_USER } from '../../src/wire/limits.js';
import { de } from '../../web/src/i18n/de.js';
import { api, askingTask } from './support/harness.js';
import {
  banner,
  openSession,
  option,
  RESPOND,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const NETWORK = de.failure.network;
const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key]));

/** The texts of every alert inside the section `testId`, once there are `count`. */
async function alerts(page: Page, testId: string, count = 1): Promise<string[]> {
  const found = page.getByTestId(testId).locator('[role="alert"]');
  await expect.poll(() => found.count(), WAIT).toBeGreaterThanOrEqual(count);
  return found.allTextContents();
}

describe('a failure said in the page’s language', () => {
  const suite = useSuite();

  async function german(path: string): Promise<Page> {
    const { page } = await suite.desktop({ locale: 'de-DE' });
    await page.goto(`${suite.world.origin}${path}`);
    await page.getByTestId('language-switch').selectOption('de');
    return page;
  }

  it('in Settings: tokens and rules that did not load, a token or command not made', async () => {
    const page = await german('/settings');
    await liveRoute(page, '**/api/v1/tokens', (route) => route.abort());
    await liveRoute(page, '**/api/v1/consent-rules', (route) => route.abort());
    await page.reload();
    await expect(alerts(page, 'api-tokens')).resolves.toEqual([
      fill(de.access.tokens.loadFailed, { error: NETWORK }),
    ]);
    await expect(alerts(page, 'consent-rules')).resolves.toEqual([
      fill(de.consentRules.loadFailed, { error: NETWORK }),
    ]);

    await page.getByTestId('api-token-name').fill('Laptop');
    await page.getByTestId('api-token-create').click();
    await expect
      .poll(() => page.getByTestId('api-tokens').locator('[role="alert"]').allTextContents(), WAIT)
      .toEqual([fill(de.access.tokens.createFailed, { error: NETWORK })]);
    await page.getByTestId('claude-code-mint').click();
    await expect(alerts(page, 'claude-code')).resolves.toEqual([
      fill(de.access.claudeCode.failed, { error: NETWORK }),
    ]);
    await page.context().close();
  });

  it('in Settings: the server’s token limit', async () => {
    const { tokens } = await api<{ tokens: unknown[] }>(suite.world, 'GET', '/api/v1/tokens');
    for (let made = tokens.length; made < MAX_TOKENS_PER_USER; made += 1) {
      await api(suite.world, 'POST', '/api/v1/tokens', { name: `filler ${made}` });
    }
    const page = await german('/settings');
    const limit = fill(de.failure.token_limit, { limit: MAX_TOKENS_PER_USER });
    await page.getByTestId('api-token-name').fill('Eins zu viel');
    await page.getByTestId('api-token-create').click();
    await expect(alerts(page, 'api-tokens')).resolves.toEqual([
      fill(de.access.tokens.createFailed, { error: limit }),
    ]);
    await page.getByTestId('claude-code-mint').click();
    await expect(alerts(page, 'claude-code')).resolves.toEqual([
      fill(de.access.claudeCode.failed, { error: limit }),
    ]);
    await page.context().close();
  });

  it('on People: users and members that did not load, an invite or change not made', async () => {
    const page = await german('/people');
    await page.getByTestId('member').first().waitFor(WAIT);
    await liveRoute(page, '**/api/v1/users', (route) => route.abort());
    await page.getByTestId('invite-name').fill('Grete');
    await page.getByTestId('invite-submit').click();
    await expect(page.getByTestId('invite-refused').textContent(WAIT)).resolves.toBe(
      de.people.refused.network,
    );
    await liveRoute(page, '**/api/v1/workspaces/*/members', (route) => route.abort());
    await page.reload();
    const loadFailed = fill(de.people.loadFailed, { error: NETWORK });
    await expect(alerts(page, 'people', 2)).resolves.toEqual([loadFailed, loadFailed]);
    await page.context().close();
  });

  it('on the first run: a demo that did not start', async () => {
    const page = await german('/');
    await liveRoute(page, '**/api/v1/tasks', (route) => route.abort());
    await page.getByTestId('first-run-demo').click();
    await expect(alerts(page, 'first-run')).resolves.toEqual([
      fill(de.firstRun.demoFailed, { error: NETWORK }),
    ]);
    await page.context().close();
  });

  it('on this device’s notifications: a turn-on that did not reach the server', async () => {
    const page = await german('/settings');
    const section = page.getByTestId('device-notifications');
    await section.and(page.locator('[data-state="off"]')).waitFor(WAIT);
    await page.context().grantPermissions(['notifications'], { origin: suite.world.origin });
    await liveRoute(page, '**/api/v1/notification-settings', (route) => route.abort());
    await section.getByRole('button', { name: de.devicePush.turnOn }).click();
    await expect(alerts(page, 'device-notifications')).resolves.toEqual([
      fill(de.devicePush.problem.failed, { error: NETWORK }),
    ]);
    await page.context().close();
  });

  it('on the sign-in page: a refusal the server gave', async () => {
    const context = await suite.browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await liveRoute(page, '**/api/v1/auth/sign-in', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'cross-origin request refused', code: 'forbidden' }),
      }),
    );
    const link = new URL(
      (await api<{ url: string }>(suite.world, 'POST', '/api/v1/auth/sign-in-links', {})).url,
    );
    await page.goto(`${suite.world.origin}${link.pathname}${link.search}${link.hash}`);
    await expect(
      page.getByTestId('sign-in-failed').locator('[role="alert"]').textContent(WAIT),
    ).resolves.toBe(fill(de.access.signIn.refused, { error: de.failure.forbidden }));
    await context.close();
  });

  it('a refused answer says why in words, not the server’s code', async () => {
    const created = await askingTask(suite.world, 'Abgelehnt', '/ask');
    const page = await german('/');
    await liveRoute(page, RESPOND, (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'forbidden', error: 'you may not answer this' }),
      }),
    );
    await openSession(suite.world, page, created.session.id);
    await option(page, 'Hand-written').click();
    await page.getByTestId('send-now').click();
    const refused = banner(page, 'refused');
    await refused.waitFor(WAIT);
    await expect(refused.locator('span').first().textContent()).resolves.toBe(
      fill(de.banner.refused, { reason: de.failure.forbidden }),
    );
    await page.context().close();
  });
});
