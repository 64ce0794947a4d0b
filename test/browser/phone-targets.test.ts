/**
 * On a 390×844 touch phone: the notification settings' add form and
 * preferences are styled controls, one per row, each at least 24×24 CSS px
 * (WCAG 2.2 target size, minimum), and the inbox's bulk-select checkboxes
 * are at least 24×24 too, each named after its own request and task so a
 * screen reader tells them apart. So are a form card's radio buttons and
 * checkboxes, and the skip link once it shows.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, type CreatedTask, signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { DEPLOY_FORM } from './support/deploy-form.js';
import { formRequester } from '../../src/turns/index.js';

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
          what: element.tagName.toLowerCase() + ' ' + ((element.getAttribute('aria-label') ?? element.textContent ?? '').trim() || element.getAttribute('value') || '').slice(0, 40),
          top: rect.top, bottom: rect.bottom, width: rect.width, height: rect.height,
        };
      })
      .filter((box) => box.width > 0 && box.height > 0)`,
  );
}

describe('touch targets and names on a phone', () => {
  const suite = useWorld();

  async function phonePage(): Promise<Page> {
    const { world, browser } = suite;
    return signedInPage(world, browser, undefined, PHONE);
  }

  const small = (found: Box[]) =>
    found.filter((box) => box.width < 24 || box.height < 24).map((box) => box.what);

  it('styles the add-a-channel form and the preferences, one labelled control per row', async () => {
    const { world } = suite;
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
    const { world } = suite;
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

  it('makes a form card’s radio buttons and checkboxes 24×24 or more', async () => {
    const { world } = suite;
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Deploy with a form',
      prompt: 'deploy',
    });
    // A form comes only from an agent's generic elicitation: raised here as the ACP host would.
    const requestForm = formRequester(
      { store: world.clarion.store },
      () => world.clarion.turns.userInputs,
    );
    const abandon = new AbortController();
    void requestForm({
      sessionId: created.session.id,
      turnId: undefined,
      message: 'Where should this be deployed?',
      schema: DEPLOY_FORM,
      signal: abandon.signal,
    }).catch(() => undefined);
    const page = await phonePage();
    await page.goto(`${world.origin}/sessions/${created.session.id}`);
    await page.getByTestId('form-submit').waitFor(WAIT);
    const choices = await boxes(
      page,
      '[data-testid="form-fields"] :is(input[type="radio"], input[type="checkbox"])',
    );
    // Two environments, the yes/no and two regions.
    expect(choices).toHaveLength(5);
    expect(small(choices)).toEqual([]);
    abandon.abort();
    await page.context().close();
  });

  it('makes the skip link 24 px tall or more once a keyboard reaches it', async () => {
    const page = await phonePage();
    await page.keyboard.press('Tab');
    await expect(
      page.evaluate<string | null>('document.activeElement?.textContent ?? null'),
    ).resolves.toBe('Skip to content');
    const shown = await boxes(page, '.skip-link');
    expect(shown).toHaveLength(1);
    expect(small(shown)).toEqual([]);
    // On screen, not merely focused somewhere off it.
    expect(shown[0]?.top).toBeGreaterThanOrEqual(0);
    await page.context().close();
  });
});
