/**
 * On a 390×844 touch phone: the notification settings' add form and
 * preferences are styled controls, one per row, each at least 24×24 CSS px
 * (WCAG 2.2 target size, minimum), and the inbox's bulk-select checkboxes
 * are at least 24×24 too, each named after its own request and task so a
 * screen reader tells them apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  api,
  launchChromium,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

const PHONE = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 2,
  locale: 'en-US',
} as const;

interface Box {
  what: string;
  top: number;
  bottom: number;
  width: number;
  height: number;
}

/** The boxes of the visible controls (or labels) under `selector`, in document order. */
function boxes(page: Page, selector: string): Promise<Box[]> {
  return page.evaluate<Box[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})]
      .map((element) => {
        const rect = element.getBoundingClientRect();
        return {
          what: element.tagName.toLowerCase() + ' ' + (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40),
          top: rect.top, bottom: rect.bottom, width: rect.width, height: rect.height,
        };
      })
      .filter((box) => box.width > 0 && box.height > 0)`,
  );
}

describe('touch targets and names on a phone', () => {
  let world: World;
  let browser: Browser;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  async function phonePage(): Promise<Page> {
    const context = await browser.newContext(PHONE);
    context.setDefaultTimeout(30_000);
    const link = new URL(
      (await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {})).url,
    );
    const page = await context.newPage();
    await page.goto(`${world.origin}${link.pathname}${link.search}`);
    await page.waitForURL(`${world.origin}/`);
    return page;
  }

  const small = (found: Box[]) =>
    found.filter((box) => box.width < 24 || box.height < 24).map((box) => box.what);

  it('styles the add-a-channel form and the preferences, one labelled control per row', async () => {
    await api(world, 'POST', '/api/v1/notification-channels', {
      kind: 'webhook',
      url: 'https://relay.test/hook',
      name: 'Team relay',
    });
    const page = await phonePage();
    await page.goto(`${world.origin}/settings`);
    await page.getByTestId('notification-reminder').waitFor(WAIT);
    const controls = await boxes(
      page,
      '[data-testid="notification-settings"] :is(button, input, select)',
    );
    expect(controls.length).toBeGreaterThan(6);
    expect(small(controls)).toEqual([]);
    // Labels stacked, not run together on one line.
    for (const form of ['.notification-add', '.notification-preferences']) {
      const labels = await boxes(page, `${form} label`);
      expect(labels.length).toBeGreaterThan(1);
      for (const [index, label] of labels.slice(1).entries()) {
        expect(label.top).toBeGreaterThanOrEqual((labels[index]?.bottom ?? 0) - 1);
      }
    }
    await page.context().close();
  });

  it('makes each bulk-select checkbox 24×24 or more and names it after its request and task', async () => {
    const tasks = await Promise.all(
      ['Deploy east', 'Deploy west'].map((title) =>
        api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt: '/permission' }),
      ),
    );
    const page = await phonePage();
    const boxesOf = page.getByTestId('bulk-select');
    await expect.poll(() => boxesOf.count(), WAIT).toBe(tasks.length);
    expect(small(await boxes(page, '[data-testid="bulk-select"]'))).toEqual([]);
    for (const title of ['Deploy east', 'Deploy west']) {
      await expect(
        page.getByRole('checkbox', { name: new RegExp(`of the task “${title}”`) }).count(),
      ).resolves.toBe(1);
    }
    await page.context().close();
  });
});
