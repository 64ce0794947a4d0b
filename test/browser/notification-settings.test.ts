/**
 * The notification settings in Chromium against a real server and a real
 * receiver: a person adds a webhook (its secret shown once), sends a test
 * that arrives signed with that secret (its row then says "Delivered"),
 * sets the reminder, "include the question" and "answer links", and removes the channel after confirming in the page; what
 * the page did is what REST reads. With the server unreachable, each failed
 * action says which action failed and why.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Request } from 'playwright-core';
import { startReceiver, type Receiver } from '../support/receiver.js';
import {
  adminSignedInState,
  api,
  freshPage,
  launchChromium,
  signedInPage,
  startWorld,
  type StorageState,
  type World,
} from './support/harness.js';
import type { ContextOptions } from './support/context-pool.js';
import { holdFirst, settleRequests, WAIT } from './support/clarification-pages.js';
import { de } from '../../web/src/i18n/de.js';
import { en } from '../../web/src/i18n/en.js';
import { liveRoute } from './support/live-route.js';

/** A loopback port nothing listens on: a send to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const AXE = resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key]));

interface Settings {
  settings: { reminder_delay_s: number; include_question: boolean; answer_links: boolean };
}

/**
 * Follows the page's notification reads from before it loads. `settledOnline`
 * waits until its socket is confirmed and every such read is answered: the
 * confirmation reads the lists again, and a read cut off by a test's routing
 * would say "could not be loaded" for a reason of its own.
 */
function notificationReads(page: Page): { settledOnline(): Promise<void> } {
  const open = new Set<Request>();
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/notification-')) open.add(request);
  });
  page.on('requestfinished', (request) => open.delete(request));
  page.on('requestfailed', (request) => open.delete(request));
  return {
    async settledOnline() {
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
      await expect.poll(() => open.size, WAIT).toBe(0);
    },
  };
}

async function channelId(world: World, name: string): Promise<string> {
  const listed = await api<{ channels: { id: string; name: string }[] }>(
    world,
    'GET',
    '/api/v1/notification-channels',
  );
  return listed.channels.find((each) => each.name === name)?.id ?? '';
}

describe('notification settings in the web app', () => {
  let world: World;
  let browser: Browser;
  let receiver: Receiver;
  let signedIn: StorageState;

  beforeAll(async () => {
    [world, browser, receiver] = await Promise.all([
      startWorld(),
      launchChromium(),
      startReceiver(),
    ]);
    // The admin signs in once: a sign-in per test loaded the whole app at / before Settings.
    signedIn = await adminSignedInState(world, browser);
  }, 120_000);

  /** A page of the admin's, signed in, at no page yet: each test opens Settings itself. */
  const adminPage = (options: ContextOptions = {}): Promise<Page> =>
    freshPage(browser, { storageState: signedIn, ...options });

  afterAll(async () => {
    await browser.close();
    await world.close();
    await receiver.close();
  });

  it('says what is wrong with a channel’s URL in the page’s language, and sends nothing', async () => {
    const page = await adminPage({ locale: 'de-DE' });
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/notification-channels'))
        posted += 1;
    });
    await page.goto(`${world.origin}/settings`);
    await page.getByTestId('language-switch').selectOption('de');
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    const said = (problem: keyof typeof de.notifications.urlProblem) =>
      de.notifications.addFailed.replace('{{error}}', de.notifications.urlProblem[problem]);
    for (const [kind, url, problem] of [
      ['webhook', 'https://user:pw@relay.test/hook', 'has_credentials'],
      ['webhook', 'ftp://relay.test/hook', 'not_http'],
      ['ntfy', 'https://ntfy.sh/', 'no_ntfy_topic'],
    ] as const) {
      await section.locator('select').first().selectOption(kind);
      await section.getByTestId('notification-url').fill(url);
      await section.getByRole('button', { name: de.notifications.addButton, exact: true }).click();
      await expect.poll(() => section.getByRole('alert').textContent(), WAIT).toBe(said(problem));
    }
    expect(posted).toBe(0);
    await page.context().close();
  });

  it('ties the add form’s error to the field it is about, for a screen reader', async () => {
    const made = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Bea Unheard',
    });
    const page = await signedInPage(world, browser, made.user.id);
    // axe-core, as the accessibility suite puts it in: the page's CSP refuses an inline script.
    await page.context().addInitScript({ path: AXE });
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    const field = section.getByTestId('notification-url');
    const alert = section.locator('form [role="alert"]');
    /** The field's invalid state and what a screen reader reads as its error and description. */
    const heard = () =>
      page.evaluate<{ invalid: string | null; described: string; errormessage: string }>(`(() => {
        const input = document.querySelector('[data-testid="notification-url"]');
        const texts = (attribute) =>
          (input.getAttribute(attribute) ?? '')
            .split(/\\s+/)
            .filter((id) => id !== '')
            .map((id) => document.getElementById(id)?.textContent ?? 'missing #' + id)
            .join(' ');
        return {
          invalid: input.getAttribute('aria-invalid'),
          described: texts('aria-describedby'),
          errormessage: texts('aria-errormessage'),
        };
      })()`);
    const add = async (kind: string, url: string) => {
      await section.locator('select').first().selectOption(kind);
      await field.fill(url);
      await section.getByRole('button', { name: en.notifications.addButton, exact: true }).click();
    };

    // Refused in the page: an ntfy URL without its topic.
    await add('ntfy', 'https://ntfy.sh/');
    await alert.waitFor(WAIT);
    const unsent = await alert.textContent();
    expect(await heard()).toEqual({ invalid: 'true', described: unsent, errormessage: unsent });

    // Refused by the server: not an admin, so the server's own machine is out of reach.
    await add('webhook', `http://127.0.0.1:${String(await closedPort())}/hook`);
    await expect
      .poll(() => alert.textContent(), WAIT)
      .toBe(
        fill(en.notifications.addFailed, { error: en.notifications.addRefused.internal_target }),
      );
    const refused = await alert.textContent();
    expect(await heard()).toEqual({ invalid: 'true', described: refused, errormessage: refused });
    const violations = await page.evaluate<{ id: string }[]>(
      `axe.run(document.querySelector('.notification-add'), { resultTypes: ['violations'] }).then((result) => result.violations)`,
    );
    expect(violations.map((violation) => violation.id)).toEqual([]);

    // Added: nothing is wrong any more.
    await add('webhook', 'https://relay.example/unheard');
    await section.getByTestId('notification-channel').waitFor(WAIT);
    await expect.poll(() => alert.count(), WAIT).toBe(0);
    expect(await heard()).toEqual({ invalid: 'false', described: '', errormessage: '' });
    await page.context().close();
  });

  it('reads channels and preferences again when the page is shown again', async () => {
    const made = await api<{ user: { id: string }; token: string }>(
      world,
      'POST',
      '/api/v1/users',
      {
        name: 'Bea Elsewhere',
      },
    );
    const page = await signedInPage(world, browser, made.user.id);
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    const includeQuestion = section.getByTestId('notification-include-question');
    expect(await includeQuestion.isChecked()).toBe(false);

    // On her phone, or in another window, she adds a channel and opts in to the question.
    const asBea = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${world.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      expect(response.status).toBeLessThan(300);
    };
    await asBea('POST', '/api/v1/notification-channels', {
      kind: 'webhook',
      url: 'https://relay.example/elsewhere',
      name: 'Added elsewhere',
    });
    await asBea('PUT', '/api/v1/notification-settings', { include_question: true });

    // Back to this page: it was hidden meanwhile.
    await page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);
    await section
      .getByTestId('notification-channel')
      .filter({ hasText: 'Added elsewhere' })
      .waitFor(WAIT);
    await expect.poll(() => includeQuestion.isChecked(), WAIT).toBe(true);
    await page.context().close();
  });

  it('says why a test or a last delivery failed in the page’s language', async () => {
    await api(world, 'POST', '/api/v1/notification-channels', {
      kind: 'webhook',
      url: `http://127.0.0.1:${String(await closedPort())}/hook`,
      name: 'Dead relay',
    });
    const page = await adminPage({ locale: 'de-DE' });
    await page.goto(`${world.origin}/settings`);
    await page.getByTestId('language-switch').selectOption('de');
    const channel = page.getByTestId('notification-channel').filter({ hasText: 'Dead relay' });
    await channel.waitFor(WAIT);
    await channel
      .getByRole('button', { name: fill(de.notifications.testLabel, { name: 'Dead relay' }) })
      .click();
    const result = channel.getByTestId('notification-test-result');
    await expect
      .poll(() => result.textContent(), WAIT)
      .not.toBe(` ${de.notifications.testSending}`);
    const unreachable = de.notifications.deliveryError.unreachable;
    expect(await result.textContent()).not.toContain('could not reach the target');
    expect((await result.textContent())?.trim()).toBe(
      fill(de.notifications.testFailed, { error: unreachable }),
    );
    await expect(channel.getByTestId('notification-channel-state').textContent()).resolves.toBe(
      `${de.notifications.state.failed} (${unreachable})`,
    );

    // What the server stored of the last delivery: a code, words in the page's language;
    // a row stored before codes were kept shows its stored text.
    const at = new Date().toISOString();
    await liveRoute(page, '**/api/v1/notification-channels', (route) =>
      route.fulfill({
        json: {
          channels: [
            {
              id: 'c1',
              kind: 'webhook',
              name: 'Coded relay',
              target: 'relay.test/hook',
              created_at: at,
              last_delivery: {
                state: 'failed',
                at,
                error: 'HTTP 404 (given up after 1 attempts)',
                error_code: 'http_status',
                status: 404,
              },
            },
            {
              id: 'c2',
              kind: 'ntfy',
              name: 'Old relay',
              target: 'ntfy.test/topic',
              created_at: at,
              last_delivery: { state: 'retrying', at, error: 'timed out' },
            },
          ],
        },
      }),
    );
    await page.reload();
    await page.getByTestId('language-switch').selectOption('de');
    const states = page.getByTestId('notification-channel-state');
    await expect.poll(() => states.count(), WAIT).toBe(2);
    expect(await states.allTextContents()).toEqual([
      `${de.notifications.state.failed} (${fill(de.notifications.deliveryError.http_status, { status: 404 })})`,
      `${de.notifications.state.retrying} (timed out)`,
    ]);
    await page.context().close();
    await api(
      world,
      'DELETE',
      `/api/v1/notification-channels/${await channelId(world, 'Dead relay')}`,
    );
  });

  it('says why the server refused a channel in the page’s language', async () => {
    const made = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Bea Refused',
    });
    const page = await signedInPage(world, browser, made.user.id, { locale: 'de-DE' });
    await page.goto(`${world.origin}/settings`);
    await page.getByTestId('language-switch').selectOption('de');
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    const add = async (url: string) => {
      await section.locator('select').first().selectOption('webhook');
      await section.getByTestId('notification-url').fill(url);
      await section.getByRole('button', { name: de.notifications.addButton, exact: true }).click();
    };
    const alert = section.locator('form [role="alert"]');

    // Not an admin: the server's own machine is out of reach.
    await add(`http://127.0.0.1:${String(await closedPort())}/hook`);
    await expect
      .poll(() => alert.textContent(), WAIT)
      .toBe(
        fill(de.notifications.addFailed, { error: de.notifications.addRefused.internal_target }),
      );

    // The same target twice would send every notice twice.
    await add('https://relay.example/hook');
    await section.getByTestId('notification-channel').waitFor(WAIT);
    await add('https://relay.example/hook');
    await expect
      .poll(() => alert.textContent(), WAIT)
      .toBe(
        fill(de.notifications.addFailed, { error: de.notifications.addRefused.channel_exists }),
      );
    await page.context().close();
  });

  it('adds a webhook, sends a signed test, sets the preferences and removes it', async () => {
    const page = await adminPage();
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);

    await section.getByLabel('Kind').selectOption('webhook');
    // A refused URL says why, and nothing is added.
    await section.getByTestId('notification-url').fill('https://user:pw@relay.test/hook');
    await section.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => section.getByRole('alert').textContent(), WAIT)
      .toContain(en.notifications.urlProblem.has_credentials);
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
    // The row follows what the test just reported, without a reload.
    await expect(channel.getByTestId('notification-channel-state').textContent()).resolves.toBe(
      'Delivered',
    );
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
    // Answer links are on until the person turns them off; the box says who can use them.
    const links = section.getByRole('checkbox', { name: 'Answer buttons in ntfy notifications' });
    expect(await links.isChecked()).toBe(true);
    expect(await links.getAttribute('aria-describedby')).toBe('notification-answer-links-hint');
    await expect(page.locator('#notification-answer-links-hint').textContent()).resolves.toContain(
      'Anyone who can read the ntfy topic',
    );
    await links.uncheck();
    await expect
      .poll(() => api<Settings>(world, 'GET', '/api/v1/notification-settings'), WAIT)
      .toMatchObject({ settings: { answer_links: false, include_question: true } });

    await channel.getByRole('button', { name: 'Remove' }).click();
    await channel.getByRole('button', { name: 'Remove channel' }).click();
    await section.getByTestId('notification-channels-empty').waitFor(WAIT);
    expect(
      await api<{ channels: unknown[] }>(world, 'GET', '/api/v1/notification-channels'),
    ).toEqual({ channels: [] });
    await page.context().close();
  });

  it('asks in the page before removing a channel, from the keyboard too', async () => {
    const created = await api<{ channel: { id: string; name: string } }>(
      world,
      'POST',
      '/api/v1/notification-channels',
      { kind: 'webhook', url: `${receiver.url}/confirm`, name: 'Build relay' },
    );
    const page = await adminPage();
    await page.goto(`${world.origin}/settings`);
    const channel = page.getByTestId('notification-channel').filter({ hasText: 'Build relay' });
    await channel.waitFor(WAIT);
    const listed = async () =>
      (
        await api<{ channels: { id: string }[] }>(world, 'GET', '/api/v1/notification-channels')
      ).channels.map((each) => each.id);

    const remove = channel.getByRole('button', { name: 'Remove Build relay', exact: true });
    await remove.focus();
    await page.keyboard.press('Enter');
    const confirm = channel.getByTestId('notification-remove-confirm');
    await expect
      .poll(() => confirm.textContent(), WAIT)
      .toContain('Its signing secret was shown only once');
    // The first tap removed nothing, and focus waits on the safe choice.
    expect(await listed()).toContain(created.channel.id);
    expect(await page.evaluate<string | null>('document.activeElement?.textContent ?? null')).toBe(
      'Keep it',
    );
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached', ...WAIT });
    expect(await page.evaluate<string | null>('document.activeElement?.textContent ?? null')).toBe(
      'Remove',
    );
    expect(await listed()).toContain(created.channel.id);

    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await channel.waitFor({ state: 'detached', ...WAIT });
    expect(await listed()).not.toContain(created.channel.id);
    await page.context().close();
  });

  it('names the channel each of its buttons acts on, for a screen reader', async () => {
    const ids = await Promise.all(
      ['North relay', 'South relay'].map(async (name) => {
        const made = await api<{ channel: { id: string } }>(
          world,
          'POST',
          '/api/v1/notification-channels',
          { kind: 'webhook', url: `${receiver.url}/${name.replace(' ', '-')}`, name },
        );
        return made.channel.id;
      }),
    );
    const page = await adminPage();
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    for (const name of ['North relay', 'South relay']) {
      await section
        .getByRole('button', { name: `Send a test to ${name}`, exact: true })
        .waitFor(WAIT);
      await section.getByRole('button', { name: `Remove ${name}`, exact: true }).waitFor(WAIT);
    }
    await page.context().close();
    for (const id of ids) await api(world, 'DELETE', `/api/v1/notification-channels/${id}`);
  });

  it('keeps the keyboard’s place when a channel is removed', async () => {
    for (const name of ['East relay', 'West relay']) {
      await api(world, 'POST', '/api/v1/notification-channels', {
        kind: 'webhook',
        url: `${receiver.url}/${name.replace(' ', '-')}`,
        name,
      });
    }
    const page = await adminPage();
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    const focused = () =>
      page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null');
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });
    const removeByKeyboard = async (name: string) => {
      await section.getByRole('button', { name: `Remove ${name}`, exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Shift+Tab');
      const held = await holdFirst(page, '**/api/v1/notification-channels/*', 'DELETE');
      await page.keyboard.press('Enter');
      await held.arrived;
      // The step goes as the removal starts: Remove, busy, holds the focus meanwhile.
      await expect.poll(focused, WAIT).toBe(`Remove ${name}`);
      await expect(
        page.evaluate('document.activeElement?.getAttribute("aria-disabled")'),
      ).resolves.toBe('true');
      await page.keyboard.press('Enter');
      await settleRequests(page);
      expect(deletes).toHaveLength(1);
      deletes.length = 0;
      held.release();
      await section
        .getByTestId('notification-channel')
        .filter({ hasText: name })
        .waitFor({ state: 'detached', ...WAIT });
      await page.unrouteAll({ behavior: 'wait' });
    };

    // The next channel's first button takes the focus, not the page's body.
    await removeByKeyboard('East relay');
    await expect.poll(focused, WAIT).toBe('Send a test to West relay');
    // With none left, the field that adds one.
    await removeByKeyboard('West relay');
    await expect
      .poll(
        () => page.evaluate<string | null>('document.activeElement?.dataset.testid ?? null'),
        WAIT,
      )
      .toBe('notification-url');
    await page.context().close();
  });

  it('adds and tests once when a button is pressed again before the server answers', async () => {
    const page = await adminPage();
    const posted: string[] = [];
    // A slow server: each POST answers after a while, as over a phone's connection.
    await liveRoute(page, '**/api/v1/notification-channels**', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posted.push(new URL(route.request().url()).pathname);
      await new Promise((resolve) => setTimeout(resolve, 600));
      return route.continue();
    });
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    await section.getByLabel('Kind').selectOption('webhook');
    await section.getByTestId('notification-url').fill(`${receiver.url}/twice`);
    await section.getByLabel('Name (optional)').fill('Twice relay');
    // The submit button, whatever it says while the first press is on its way.
    const addButton = section.locator('form button[type="submit"]');
    await addButton.click();
    await addButton.click({ force: true });
    const channel = section.getByTestId('notification-channel').filter({ hasText: 'Twice relay' });
    await channel.waitFor(WAIT);
    await page.waitForTimeout(1_000);
    expect(posted).toEqual(['/api/v1/notification-channels']);
    expect(await section.locator('form [role="alert"]').count()).toBe(0);

    const before = receiver.received.length;
    const testButton = channel.getByRole('button', { name: 'Send a test to Twice relay' });
    await testButton.click();
    await testButton.click({ force: true });
    await expect
      .poll(() => channel.getByTestId('notification-test-result').textContent(), WAIT)
      .toContain('Test delivered.');
    await page.waitForTimeout(1_000);
    expect(receiver.received.length - before).toBe(1);
    await page.context().close();
    await api(
      world,
      'DELETE',
      `/api/v1/notification-channels/${await channelId(world, 'Twice relay')}`,
    );
  });

  it('shows what the server keeps when one change fails while a later one is saved', async () => {
    await api(world, 'PUT', '/api/v1/notification-settings', {
      include_question: false,
      answer_links: false,
    });
    const page = await adminPage();
    let puts = 0;
    // The first change is lost on a slow connection; the second one gets through first.
    await liveRoute(page, '**/api/v1/notification-settings', async (route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      puts += 1;
      if (puts > 1) return route.continue();
      await new Promise((resolve) => setTimeout(resolve, 800));
      return route.abort('connectionrefused');
    });
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    const question = section.getByTestId('notification-include-question');
    const links = section.getByTestId('notification-answer-links');
    await links.waitFor(WAIT);
    await question.check();
    await links.check();
    await section.getByTestId('notification-save-error').waitFor(WAIT);
    const saved = await api<Settings>(world, 'GET', '/api/v1/notification-settings');
    expect(saved.settings).toMatchObject({ include_question: false, answer_links: true });
    // The box shows what notices carry: answer links on, the lost change undone.
    expect(await links.isChecked()).toBe(true);
    expect(await question.isChecked()).toBe(false);
    await page.context().close();
  });

  it('says which action failed, and why, while the server cannot be reached', async () => {
    await api(world, 'POST', '/api/v1/notification-channels', {
      kind: 'webhook',
      url: `${receiver.url}/offline`,
      name: 'Offline relay',
    });
    const page = await adminPage();
    const reads = notificationReads(page);
    await page.goto(`${world.origin}/settings`);
    const section = page.getByTestId('notification-settings');
    const channel = section
      .getByTestId('notification-channel')
      .filter({ hasText: 'Offline relay' });
    await channel.waitFor(WAIT);
    await reads.settledOnline();
    const before = await api<Settings>(world, 'GET', '/api/v1/notification-settings');

    // The network, not the server, fails: every notification call is refused on the way.
    await liveRoute(page, '**/api/v1/notification-*/**', (route) =>
      route.abort('connectionrefused'),
    );
    await liveRoute(page, '**/api/v1/notification-*', (route) => route.abort('connectionrefused'));

    await channel.getByRole('button', { name: 'Send a test' }).click();
    await expect
      .poll(() => channel.getByTestId('notification-test-result').textContent(), WAIT)
      .toContain('The test could not be sent (no reply from the server; check the connection).');

    const reminder = section.getByTestId('notification-reminder');
    const shown = await reminder.inputValue();
    await reminder.selectOption('3600');
    await expect
      .poll(() => section.getByTestId('notification-save-error').textContent(), WAIT)
      .toBe('Your change was not saved (no reply from the server; check the connection).');
    expect(await reminder.inputValue()).toBe(shown);

    await channel.getByRole('button', { name: 'Remove Offline relay', exact: true }).click();
    await channel.getByRole('button', { name: 'Remove channel' }).click();
    await expect
      .poll(() => channel.getByTestId('notification-remove-error').textContent(), WAIT)
      .toBe('The channel was not removed (no reply from the server; check the connection).');
    // The step that had the focus closed: it goes back to the channel's Remove, to try again.
    await expect
      .poll(
        () =>
          page.evaluate<string | null>(
            'document.activeElement?.getAttribute("aria-label") ?? null',
          ),
        WAIT,
      )
      .toBe('Remove Offline relay');

    expect(await section.textContent()).not.toContain('could not be loaded');
    await page.unrouteAll();
    expect(await api<Settings>(world, 'GET', '/api/v1/notification-settings')).toEqual(before);
    const channels = await api<{ channels: { name: string }[] }>(
      world,
      'GET',
      '/api/v1/notification-channels',
    );
    expect(channels.channels.map((each) => each.name)).toContain('Offline relay');
    await page.context().close();
  });
});
