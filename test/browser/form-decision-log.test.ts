/**
 * A form's decision on the web app's Decisions page, in Debian's Chromium
 * against a real server: a form raised through `formRequester` (what the ACP
 * host calls) and declined is listed with its kind and outcome, found by the
 * kind filter, and exported in the CSV; a date range whose "to" comes before
 * its "from" shows no decision and says why.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { formRequester } from '../../src/turns/index.js';
import type { UserInputView } from '../../src/user-input/index.js';
import { DEPLOY_FORM } from './support/deploy-form.js';
import { TestHost } from '../support/test-host.js';
import {
  api,
  launchChromium,
  signedInPage,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';

const WAIT = { timeout: 30_000 };

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

describe('a form in the decision log, in Chromium', () => {
  let world: World;
  let browser: Browser;
  const host = new TestHost();

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld({ host }), launchChromium()]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  /** A form raised in a new task and declined over REST: one decision in the log. */
  async function declinedForm(title: string): Promise<void> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'deploy',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () =>
      Promise.resolve(host.prompts.some((prompt) => prompt.sessionId === sessionId) || undefined),
    );
    const requestForm = formRequester(
      { store: world.clarion.store },
      () => world.clarion.turns.userInputs,
    );
    const answer = requestForm({
      sessionId,
      turnId: undefined,
      message: 'Where should this be deployed?',
      schema: DEPLOY_FORM,
      signal: new AbortController().signal,
    });
    const request = await until('the form request', async () => {
      const list = await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs');
      return list.requests.find((entry) => entry.session_id === sessionId);
    });
    await api(world, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'decline',
    });
    await expect(answer).resolves.toEqual({ action: 'decline' });
  }

  it('lists a declined form, finds it by kind, and exports it as CSV', async () => {
    await declinedForm('Deploy with a form');

    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/decisions`);
    const item = page.locator('[data-testid="decision-item"][data-kind="form"]');
    await item.waitFor(WAIT);
    await expect(item.getByTestId('decision-outcome').textContent()).resolves.toBe('Declined');
    await expect(item.locator('.decision-subject').textContent()).resolves.toBe(
      'Form Deploy settings',
    );

    await page.getByTestId('filter-kind').selectOption('form');
    await expect
      .poll(
        () => page.locator('[data-testid="decision-item"]').evaluateAll((items) => items.length),
        WAIT,
      )
      .toBe(1);
    // From the keyboard: the focus stays on Export CSV through the export and after it.
    await page.getByTestId('decisions-export').focus();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.keyboard.press('Enter'),
    ]);
    const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]?.split(',').slice(1, 5)).toEqual(['form', 'declined', 'Deploy settings', '']);
    await expect
      .poll(() => page.getByTestId('decisions-export').textContent(), WAIT)
      .toBe('Export CSV');
    await expect(
      page.evaluate<string | null | undefined>(
        '(() => document.activeElement?.getAttribute("data-testid"))()',
      ),
    ).resolves.toBe('decisions-export');
    await context.close();
  });

  it('shows nothing for a "to" day before the "from" day, and says why', async () => {
    await declinedForm('Deploy today');
    const day = (offset: number) => {
      const date = new Date();
      date.setDate(date.getDate() + offset);
      const pad = (value: number) => String(value).padStart(2, '0');
      return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
    };

    // The world's own link signed in once already.
    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/decisions`);
    await page.locator('[data-testid="decision-item"]').first().waitFor(WAIT);
    // From today to yesterday: today's decisions lie after the range's end.
    await page.getByTestId('filter-since').fill(day(0));
    await page.getByTestId('filter-until').fill(day(-1));

    await expect
      .poll(
        () => page.locator('[data-testid="decision-item"]').evaluateAll((items) => items.length),
        WAIT,
      )
      .toBe(0);
    await page.getByTestId('decisions-range-inverted').waitFor(WAIT);
    await expect(page.getByTestId('decisions-range-inverted').textContent()).resolves.toBe(
      'The “To” day is before the “From” day, so no decision can match.',
    );
    await expect(page.getByTestId('decisions-export').isDisabled()).resolves.toBe(true);
    // A screen reader on the "To" field hears it is wrong, and why.
    // A string, because this file is compiled without the DOM library.
    const until = await page.evaluate<{ invalid: string | null; described: string }>(`(() => {
      const input = document.querySelector('[data-testid="filter-until"]');
      const ids = (input.getAttribute('aria-describedby') ?? '').split(' ');
      return {
        invalid: input.getAttribute('aria-invalid'),
        described: ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' '),
      };
    })()`);
    expect(until).toEqual({
      invalid: 'true',
      described: 'The “To” day is before the “From” day, so no decision can match.',
    });

    // Set right, the range reads again and finds today's decisions.
    await page.getByTestId('filter-until').fill(day(0));
    await page.locator('[data-testid="decision-item"]').first().waitFor(WAIT);
    await expect(page.getByTestId('decisions-range-inverted').count()).resolves.toBe(0);
    await expect(page.getByTestId('filter-until').getAttribute('aria-invalid')).resolves.toBe(null);
    await page.context().close();
  });
});
