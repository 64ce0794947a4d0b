/**
 * The notification settings in Chromium against a real server and a real
 * receiver: a person adds a webhook (its secret shown once), sends a test
 * that arrives signed with that secret, sets the reminder and "include the
 * question", and removes the channel; what the page did is what REST reads.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { api, launchChromium, startWorld, type World } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

interface Settings {
  settings: { reminder_delay_s: number; include_question: boolean };
}

describe('notification settings in the web app', () => {
  let world: World;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    [world, browser, receiver] = await Promise.all([
      startWorld(),
      launchChromium(),
      startReceiver(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await world.close();
    await receiver.close();
  });

  it('adds a webhook, sends a signed test, sets the preferences and removes it', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);

    await section.getByLabel('Kind').selectOption('webhook');
    // A refused URL says why, and nothing is added.
    await section.getByTestId('notification-url').fill('https://user:pw@relay.test/hook');
    await section.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => section.getByRole('alert').textContent(), WAIT)
      .toContain('url: must not include a username or password');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    await section.getByTestId('notification-url').fill(`${receiver.url}/hook`);
    await section.getByRole('button', { name: 'Add', exact: true }).click();
    const secret =
      (await section.getByTestId('notification-secret').locator('code').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const channel = section.getByTestId('notification-channel');
    await channel.waitFor(WAIT);

    await channel.getByRole('button', { name: 'Send a test' }).click();
    await expect
      .poll(() => channel.getByTestId('notification-test-result').textContent(), WAIT)
      .toContain('Test delivered.');
    expect(receiver.received).toHaveLength(1);
    const [test] = receiver.received;
    expect(test?.path).toBe('/hook');
    expect(test?.headers['x-clarion-signature']).toBe(
      `sha256=${createHmac('sha256', secret)
        .update(test?.body ?? '')
        .digest('hex')}`,
    );
    expect(JSON.parse(test?.body ?? '{}')).toMatchObject({ event: 'test' });

    await section.getByTestId('notification-reminder').selectOption('300');
    await section.getByTestId('notification-include-question').check();
    await expect
      .poll(() => api<Settings>(world, 'GET', '/api/v1/notification-settings'), WAIT)
      .toMatchObject({ settings: { reminder_delay_s: 300, include_question: true } });

    await channel.getByRole('button', { name: 'Remove' }).click();
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    expect(
      await api<{ channels: unknown[] }>(world, 'GET', '/api/v1/notification-channels'),
    ).toEqual({ channels: [] });
    await context.close();
  });
});
