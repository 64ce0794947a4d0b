/**
 * The web app in Debian's Chromium against a real server and the demo agent:
 * inbox, single and multi-question answers, skip, Retry after a 503, a
 * network failure and the client deadline, a late answer, and the phone
 * layout. Screenshots go to dist/test-artifacts/.
 */
import { describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { UNDO_WINDOW_MS } from '../../web/src/model/respond.js';
import { api, askingTask } from './support/harness.js';
import {
  agentSaid,
  banner,
  openSession as openSessionIn,
  option,
  RESPOND,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { scriptRoute } from './support/scripted-route.js';
import { liveRoute } from './support/live-route.js';

describe('the web app in Chromium', () => {
  const suite = useSuite();

  const desktop = () => suite.desktop();
  const shoot = (page: Page, name: string, fullPage = true) => suite.shoot(page, name, fullPage);
  const openSession = (page: Page, sessionId: string, query = '') =>
    openSessionIn(suite.world, page, sessionId, query);

  it('answers a single question from the inbox and the agent quotes the label', async () => {
    const { context, page } = await desktop();
    // The answer is held for the undo window: the test moves the page's clock through it.
    await page.clock.install();
    const created = await askingTask(suite.world, 'Single question', '/ask');
    await page.goto(`${suite.world.origin}/`);
    const item = page.locator(`[data-testid="inbox-item"]`).filter({ hasText: 'Single question' });
    await item.waitFor(WAIT);
    await expect(item.textContent()).resolves.toContain(
      'How should I create the configuration file?',
    );
    await expect(
      page
        .getByTestId('task-link')
        .filter({ hasText: 'Single question' })
        .getAttribute('data-pending'),
    ).resolves.toBe('true');
    await shoot(page, 'inbox');

    await item.getByRole('link').click();
    await page.waitForURL(`**/sessions/${created.session.id}`);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(option(page, 'Generated').textContent()).resolves.toContain(
      'Generate it from the defaults in the code.',
    );
    await shoot(page, 'overlay');

    const toolCall = page
      .getByTestId('message')
      .filter({ has: page.getByTestId('tool-status') })
      .filter({ hasText: 'Asking you a question' });
    await expect(toolCall.getByTestId('tool-status').getAttribute('data-status')).resolves.toBe(
      'in_progress',
    );
    await option(page, 'Generated').click();
    await banner(page, 'undo').waitFor(WAIT);
    await page.clock.runFor(UNDO_WINDOW_MS + 1_000);
    await agentSaid(page, 'Answer to q1: "Generated"').waitFor(WAIT);
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
    // The agent's later report of its tool call revises the one row live.
    await toolCall.locator('[data-status="completed"]').waitFor(WAIT);
    await expect(toolCall.count()).resolves.toBe(1);
    await page.goto(`${suite.world.origin}/`);
    await page.getByTestId('inbox-empty').or(page.getByTestId('inbox-item')).first().waitFor(WAIT);
    await expect(
      page.locator(`[data-testid="inbox-item"]`).filter({ hasText: 'Single question' }).count(),
    ).resolves.toBe(0);
    await context.close();
  });

  it('steps through three questions, keeps choices on Back, and submits with Ctrl+Enter', async () => {
    const { context, page } = await desktop();
    const created = await askingTask(suite.world, 'Three questions', '/ask-multi');
    await openSession(page, created.session.id);
    const overlay = page.getByTestId('clarification-overlay');
    await expect(
      page.getByTestId('clarification-stepper').getByRole('button').count(),
    ).resolves.toBe(3);
    await expect(page.getByTestId('clarification-context').textContent()).resolves.toContain(
      'continuous integration pipeline',
    );
    await expect(page.getByTestId('clarification-submit').isDisabled()).resolves.toBe(true);

    await option(page, 'Hosted').click(); // single choice: advances
    await page.getByText('Which checks should run on every pull request?').waitFor();
    await option(page, 'Lint').click();
    await overlay.focus();
    await page.keyboard.press('2'); // number keys pick options: Tests
    await expect(option(page, 'Tests').getAttribute('aria-checked')).resolves.toBe('true');
    await page.getByTestId('clarification-next').click();
    await page.getByText('Which Node.js versions should the pipeline test?').waitFor();
    await option(page, 'Both').click();
    await page.getByTestId('clarification-answered').getByText('3 of 3 answered').waitFor();

    await page.getByTestId('clarification-back').click();
    await expect(option(page, 'Lint').getAttribute('aria-checked')).resolves.toBe('true');
    await expect(option(page, 'Tests').getAttribute('aria-checked')).resolves.toBe('true');
    await overlay.focus();
    await page.keyboard.press('ArrowLeft');
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('true');

    await page.keyboard.press('Escape'); // collapses, never rejects
    await page.getByTestId('clarification-collapsed').click();
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('true');

    await overlay.focus();
    await page.keyboard.press('Control+Enter');
    await agentSaid(page, 'Answer to q1: "Hosted"').waitFor(WAIT);
    await agentSaid(page, 'Answer to q2: "Lint", "Tests"').waitFor(WAIT);
    await agentSaid(page, 'Answer to q3: "Both"').waitFor(WAIT);
    await context.close();
  });

  it('skips a question: the bundle is rejected and the session goes idle', async () => {
    const { context, page } = await desktop();
    const created = await askingTask(suite.world, 'Skip me', '/ask');
    const bodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/respond')) bodies.push(request.postDataJSON());
    });
    await openSession(page, created.session.id);
    await page.getByTestId('clarification-skip').click();
    await page.getByTestId('clarification-skip-confirm-yes').click();
    await page.getByTestId('send-now').click();
    await page.locator('[data-testid="clarification-banner"][data-state="resolved"]').waitFor(WAIT);
    expect(bodies).toEqual([{ rejected: true }]);
    await page.locator('[data-testid="session-state"][data-state="idle"]').waitFor(WAIT);
    await page.getByTestId('transcript').getByText('Skipped', { exact: true }).waitFor(WAIT);
    await context.close();
  });

  it('keeps the answers after a 503 and a network failure, and Retry delivers them', async () => {
    const { context, page } = await desktop();
    const created = await askingTask(suite.world, 'Flaky network', '/ask');
    const responds = await scriptRoute(page, RESPOND, ['unavailable', 'network']);
    await openSession(page, created.session.id);
    await option(page, 'Hand-written').click();
    await page.getByTestId('send-now').click();
    const error = page.locator('[data-testid="clarification-banner"][data-state="error"]');
    await error.waitFor(WAIT);
    await expect(option(page, 'Hand-written').getAttribute('aria-checked')).resolves.toBe('true');
    await expect(option(page, 'Hand-written').isEnabled()).resolves.toBe(true);

    await error.getByRole('button', { name: 'Retry' }).click();
    await error.waitFor(WAIT);
    expect(responds.attempts).toBe(2);
    await expect(option(page, 'Hand-written').getAttribute('aria-checked')).resolves.toBe('true');

    await error.getByRole('button', { name: 'Retry' }).click();
    await agentSaid(page, 'Answer to q1: "Hand-written"').waitFor(WAIT);
    expect(responds.attempts).toBe(3);
    await context.close();
  });

  it('gives up after the client deadline with the answers kept, and Retry succeeds', async () => {
    const { context, page } = await desktop();
    const created = await askingTask(suite.world, 'Silent server', '/ask');
    await scriptRoute(page, RESPOND, ['silent']);
    await openSession(page, created.session.id, '?respond_deadline_ms=1000');
    await page.getByTestId('clarification-custom').fill('keep it small');
    await page.getByTestId('clarification-custom').press('Enter');
    await page
      .locator('[data-testid="clarification-banner"][data-state="submitting"]')
      .waitFor(WAIT);
    const error = page.locator('[data-testid="clarification-banner"][data-state="error"]');
    await error.waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'keep it small',
    );
    await error.getByRole('button', { name: 'Retry' }).click();
    await agentSaid(page, 'Answer to q1: wrote "keep it small"').waitFor(WAIT);
    await context.close();
  });

  it('sends an affirmative answer to an inactive question as a new message, once', async () => {
    const { context, page } = await desktop();
    const created = await askingTask(suite.world, 'Gone stale', '/ask');
    await liveRoute(page, RESPOND, async (route: Route) => {
      await route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          error: 'clarification request is no longer active',
          code: 'not_active',
        }),
      });
    });
    const admissions: { text: string; admission_key: string }[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/messages')) {
        admissions.push(request.postDataJSON() as { text: string; admission_key: string });
      }
    });
    await openSession(page, created.session.id);
    await option(page, 'No file').click();
    await page.getByTestId('send-now').click();
    // The session still waits for its (real) question, so the message is queued.
    await page
      .locator('[data-testid="clarification-banner"][data-state="late-queued"]')
      .waitFor(WAIT);
    expect(admissions).toHaveLength(1);
    expect(admissions[0]?.text).toBe('How should I create the configuration file?\nNo file');
    const queue = await api<{ items: { text: string }[] }>(
      suite.world,
      'GET',
      `/api/v1/sessions/${created.session.id}/queue`,
    );
    expect(queue.items.map((item) => item.text)).toEqual([
      'How should I create the configuration file?\nNo file',
    ]);
    await page.getByTestId('queue').getByText('No file').waitFor(WAIT);
    await context.close();
  });

  it('works at phone size with touch: 44 px targets, no horizontal overflow, Send submits', async () => {
    const { context, page } = await suite.phone();
    const created = await askingTask(suite.world, 'On the phone', '/ask');
    await openSession(page, created.session.id);
    await expect(page.evaluate('matchMedia("(pointer: coarse)").matches')).resolves.toBe(true);

    const buttons = page.getByTestId('clarification-overlay').locator('button');
    const count = await buttons.count();
    expect(count).toBeGreaterThanOrEqual(6); // 3 options, Skip, collapse, Send
    for (let index = 0; index < count; index++) {
      const box = await buttons.nth(index).boundingBox();
      expect(box, `button ${String(index)}`).not.toBeNull();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
      expect(box?.width ?? 0).toBeGreaterThanOrEqual(44);
    }
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    ).resolves.toBe(true);
    await page.getByTestId('clarification-custom-send').waitFor();
    await shoot(page, 'phone-overlay', false);

    const input = page.getByTestId('clarification-custom');
    await input.tap();
    await input.pressSequentially('first line');
    await input.press('Enter'); // a newline on touch, not a submit
    await input.pressSequentially('second line');
    await expect(input.inputValue()).resolves.toBe('first line\nsecond line');
    await page.getByTestId('clarification-custom-send').tap();
    await agentSaid(page, 'Answer to q1: wrote "first line').waitFor(WAIT);
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    ).resolves.toBe(true);

    await page.goto(`${suite.world.origin}/`);
    await page.getByTestId('task-link').first().waitFor(WAIT);
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    ).resolves.toBe(true);
    await shoot(page, 'phone-inbox', false);
    await context.close();
  });
});
