/**
 * A person who answers with the keyboard keeps their place: the pressed
 * button reads busy (`aria-disabled`) and keeps the focus while the answer
 * goes, and its card moves or leaves once decided, which left the focus on
 * the page's body (a screen reader went quiet, the next Tab started over).
 * In the inbox the focus then goes to the answered row while it stays, then
 * to the row that takes its place; in a session it goes to the request's
 * card, wherever it now is. Chromium (Debian's) against a real server and
 * the demo agent.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { UNDO_WINDOW_MS } from '../../web/src/model/respond.js';
import { api, askingTask, type CreatedTask, type World } from './support/harness.js';
import {
  banner,
  holdFirst,
  option,
  openSession,
  recordRequests,
  RESPOND,
  settleRequests,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

/** The focused element: its tag, and the request or row it stands for. */
function focused(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'body';
    const id = active.getAttribute('data-triage-key') ?? active.getAttribute('data-request-id') ?? active.getAttribute('data-testid') ?? '';
    return active.tagName.toLowerCase() + ' ' + id + ' ' + (active.getAttribute('data-status') ?? '');
  })()`);
}

/** The focused button: its test ID, its option, and whether it reads busy. */
function focusedButton(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const active = document.activeElement;
    if (!active || active.tagName !== 'BUTTON') return 'no button';
    const name = active.getAttribute('data-testid') ?? active.className;
    const option = active.getAttribute('data-kind') ?? active.getAttribute('data-option-id') ?? '';
    return name + ' ' + option + ' busy=' + active.getAttribute('aria-disabled');
  })()`);
}

/** Holds the page's requests to `url` until the returned function is called. */
async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release = (): void => undefined;
  const released = new Promise<void>((done) => {
    release = done;
  });
  await liveRoute(page, url, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

/** Runs the page's clock through the undo window, until the held answer is asked for. */
async function undoWindowPassed(page: Page, url: string): Promise<void> {
  const asked = page.waitForRequest(url, WAIT);
  await page.clock.runFor(UNDO_WINDOW_MS);
  await asked;
}

async function waitingRequest(world: World, sessionId: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { requests } = await api<{ requests: { id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/user-inputs',
    );
    const found = requests.find((request) => request.session_id === sessionId);
    if (found) return found.id;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('no request within 30 s');
}

async function started(world: World, title: string, prompt: string) {
  const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt });
  return { created, requestId: await waitingRequest(world, created.session.id) };
}

describe('the focus after an answer given with the keyboard', () => {
  const suite = useSuite();

  it('in the inbox: an answer keeps it on its button while it goes, then a consent leaves it on the next waiting row, a question on its own row', async () => {
    const { world } = suite;
    const first = await started(world, 'Focus consent one', '/permission');
    const second = await started(world, 'Focus consent two', '/permission');
    await askingTask(world, 'Focus question', '/ask Which file?');
    const { page } = await suite.desktop();
    // Installed before the page loads, so the undo window is run through rather than waited out.
    await page.clock.install();
    await page.goto(`${world.origin}/`);
    const row = (key: string) => page.locator(`[data-triage-key="${key}"]`);
    await row(second.requestId).waitFor(WAIT);

    // A Reject's confirm step goes as it is confirmed: the Reject it answers takes the focus, and
    // keeps it through the undo window and the answer's request.
    const rejected = `**/api/v1/user-inputs/${first.requestId}/respond`;
    const releaseReject = await holdRequests(page, rejected);
    await row(first.requestId).locator('[data-kind="reject_once"]').focus();
    await page.keyboard.press('Enter');
    await row(first.requestId).getByTestId('decision-confirm-yes').focus();
    await page.keyboard.press('Enter');
    const onReject = 'consent-option reject_once busy=true';
    await expect.poll(() => focusedButton(page), WAIT).toBe(onReject);
    await undoWindowPassed(page, rejected);
    expect(await focusedButton(page)).toBe(onReject);
    releaseReject();
    await row(first.requestId).waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focused(page), WAIT).toMatch(/^li /);
    expect(await focused(page)).not.toContain(first.requestId);
    // J moves on from there, as from any row.
    await page.keyboard.press('j');
    await expect.poll(() => focused(page)).toMatch(/^li /);

    const pendingId = await page
      .locator('[data-testid="inbox-item"]')
      .filter({ hasText: 'Focus question' })
      .getAttribute('data-pending-id');
    const answered = `**/api/v1/clarification/${pendingId ?? ''}/respond`;
    const releaseAnswer = await holdRequests(page, answered);
    const pressed = page
      .locator(`[data-pending-id="${pendingId ?? ''}"] [data-testid="inline-option"]`)
      .first();
    const onOption = `inline-option ${(await pressed.getAttribute('data-option-id')) ?? ''} busy=true`;
    await pressed.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedButton(page), WAIT).toBe(onOption);
    await undoWindowPassed(page, answered);
    expect(await focusedButton(page)).toBe(onOption);
    releaseAnswer();
    await expect.poll(() => focused(page), WAIT).toBe(`li ${pendingId ?? ''} `);
  });

  it('in the inbox: consents allowed together keep it on Allow while they go, each sent once, then on the bar that reports how it went', async () => {
    const { world } = suite;
    const first = await started(world, 'Focus bulk one', '/permission');
    const second = await started(world, 'Focus bulk two', '/permission');
    const { page } = await suite.desktop();
    await page.goto(`${world.origin}/`);
    for (const { requestId } of [first, second]) {
      await page.locator(`[data-triage-key="${requestId}"]`).getByTestId('bulk-select').check();
    }
    const answers: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/respond')) {
        answers.push(request.url());
      }
    });
    const held = await holdFirst(page, '**/api/v1/user-inputs/*/respond');
    await page.getByTestId('bulk-allow').focus();
    // Two presses before the page renders again: the second must find the first under way.
    await page.evaluate(`(() => {
      const allow = document.querySelector('[data-testid="bulk-allow"]');
      allow.click();
      allow.click();
    })()`);
    await held.arrived;
    await expect.poll(() => focusedButton(page), WAIT).toBe('bulk-allow  busy=true');
    await page.keyboard.press('Enter');
    await settleRequests(page);
    expect(answers).toHaveLength(1);
    held.release();
    await page.locator('[data-testid="bulk-report"][data-failures="0"]').waitFor(WAIT);
    expect(answers).toHaveLength(2);
    await expect.poll(() => focused(page), WAIT).toBe('div bulk-bar ');
  });

  it('in the inbox: consents rejected together keep it on Reject while they go, then on the bar', async () => {
    const { world } = suite;
    const { requestId } = await started(world, 'Focus bulk reject', '/permission');
    const { page } = await suite.desktop();
    await page.goto(`${world.origin}/`);
    await page.locator(`[data-triage-key="${requestId}"]`).getByTestId('bulk-select').check();
    const held = await holdFirst(page, '**/api/v1/user-inputs/*/respond');
    await page.getByTestId('bulk-reject').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('decision-confirm-yes').focus();
    await page.keyboard.press('Enter');
    await held.arrived;
    // Its confirm step made Reject anew: the new one takes the focus, not the bar around it.
    await expect.poll(() => focusedButton(page), WAIT).toBe('bulk-reject  busy=true');
    held.release();
    await page.locator('[data-testid="bulk-report"][data-failures="0"]').waitFor(WAIT);
    await expect.poll(() => focused(page), WAIT).toBe('div bulk-bar ');
  });

  it('in a session: a consent and an action leave it on their settled card', async () => {
    const { world } = suite;
    const consent = await started(world, 'Focus consent here', '/permission');
    const action = await started(world, 'Focus action here', '/action connect it');
    const { page } = await suite.phone();
    for (const { created, requestId, button } of [
      { ...consent, button: '[data-kind="allow_once"]' },
      { ...action, button: '[data-testid="action-done"]' },
    ]) {
      await page.goto(`${world.origin}/sessions/${created.session.id}`);
      const card = page.locator(`.user-input-card[data-request-id="${requestId}"]`);
      await card.locator(button).focus();
      await page.keyboard.press('Enter');
      await card.and(page.locator('[data-status="settled"]')).waitFor(WAIT);
      await expect.poll(() => focused(page), WAIT).toBe(`article ${requestId} settled`);
    }
  });

  it('in a session: a question keeps it on the option picked while the answer waits, Close gives it to the composer', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Focus question here', '/ask Which file?');
    const { page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    const picked = option(page, 'Generated');
    await picked.focus();
    await page.keyboard.press('Enter');
    await banner(page, 'undo').waitFor(WAIT);
    const onPicked = `option ${(await picked.getAttribute('data-option-id')) ?? ''} busy=true`;
    await expect.poll(() => focusedButton(page), WAIT).toBe(onPicked);
    // Tab reaches Undo from there: the answer can still be taken back from the keyboard.
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Send now');

    await page.keyboard.press('Enter');
    const close = page
      .locator('[data-testid="clarification-banner"]')
      .getByRole('button', { name: 'Close' });
    await close.waitFor(WAIT);
    await close.focus();
    await page.keyboard.press('Enter');
    await close.waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focused(page), WAIT).toBe('textarea composer-input ');
  });

  it('in a session: Submit keeps it while several answers go', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Focus submit here', '/ask-multi');
    const { page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    await option(page, 'Hosted').click(); // a single choice: the next question
    await option(page, 'Lint').click();
    await page.getByTestId('clarification-next').click();
    await option(page, 'Both').click();
    const answered = `**/api/v1/clarification/*/respond`;
    const release = await holdRequests(page, answered);
    const asked = page.waitForRequest(answered, WAIT);
    await page.getByTestId('clarification-submit').focus();
    await page.keyboard.press('Enter');
    await asked;
    await expect.poll(() => focusedButton(page), WAIT).toBe('clarification-submit  busy=true');
    release();
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
  });

  it('in a session: a confirmed Skip leaves it on Skip while the skip goes', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Focus skip here', '/ask Which file?');
    const { page } = await suite.desktop();
    await page.clock.install();
    await openSession(world, page, created.session.id);
    const recorded = recordRequests(page);
    const release = await holdRequests(page, RESPOND);
    await page.getByTestId('clarification-skip').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('clarification-skip-confirm-yes').focus();
    await page.keyboard.press('Enter');
    // Skip now stands for the skip on its way, through its undo window and its request.
    const onSkip = 'clarification-skip  busy=true';
    await expect.poll(() => focusedButton(page), WAIT).toBe(onSkip);
    await page.keyboard.press('Enter');
    await undoWindowPassed(page, RESPOND);
    await page.keyboard.press('Enter');
    expect(await focusedButton(page)).toBe(onSkip);
    await settleRequests(page);
    expect(recorded.responds).toEqual([{ rejected: true }]);
    release();
    await banner(page, 'resolved').waitFor(WAIT);
  });

  it('in a session: a digit pressed in the Skip confirm answers nothing, and the skip still goes', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Focus skip confirm here', '/ask Which file?');
    const { page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    const recorded = recordRequests(page);
    await page.getByTestId('clarification-skip').click();
    const step = page.getByTestId('clarification-skip-confirm');
    // Elsewhere in the overlay a digit picks an option: on the way to skipping, it must not.
    await page.getByTestId('clarification-skip-confirm-yes').focus();
    await page.keyboard.press('1');
    await page.getByTestId('clarification-skip-reason').focus();
    await page.keyboard.press('2');
    await settleRequests(page);
    await expect(banner(page, 'undo').count()).resolves.toBe(0);
    await expect(step.isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('clarification-skip-reason').inputValue()).resolves.toBe('2');
    await page.getByTestId('clarification-skip-confirm-yes').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);
    expect(recorded.responds).toMatchObject([{ rejected: true }]);
  });
});
