/**
 * "Cancel question" in Chromium against a real server and the demo agent,
 * whose `/ask` waits live for the answer: the in-page confirmation, the
 * agent told, another tab of the same person told who cancelled, the
 * decision log, a confirmation closed without cancelling, a cancel the
 * server refuses because no agent waits any more (the question stays
 * answerable) or because an answer came first, a failed request, and the
 * same control inline in the inbox.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, askingTask } from './support/harness.js';
import {
  agentReplies,
  banner,
  holdFirst,
  option,
  openSession,
  overlayPendingId,
  pendingIds,
  settleRequests,
  until,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const CANCEL = '**/api/v1/clarification/*/cancel';

interface BundleView {
  status: string;
  active: boolean;
  detached: boolean;
}

interface DecisionEntry {
  kind: string;
  outcome: string;
  session_id: string;
  responded_by: { user_id: string; name: string; surface: string } | null;
}

/** Every cancel POST the page made. */
function recordCancels(page: Page): string[] {
  const cancels: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/cancel')) {
      cancels.push(request.url());
    }
  });
  return cancels;
}

describe('cancelling a live question from the web app, in Chromium', () => {
  const suite = useSuite();

  function bundleOf(pendingId: string): Promise<BundleView> {
    return api<BundleView>(suite.world, 'GET', `/api/v1/clarification/${pendingId}`);
  }

  async function me(): Promise<{ id: string; name: string }> {
    return (await api<{ user: { id: string; name: string } }>(suite.world, 'GET', '/api/v1/me'))
      .user;
  }

  it('cancels after the in-page confirmation; the agent is told, another tab says who cancelled, the decision log records it', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel from the overlay', '/ask');
    const { context, page } = await suite.desktop();
    const other = await context.newPage();
    const cancels = recordCancels(page);
    await openSession(world, page, created.session.id);
    await openSession(world, other, created.session.id);
    const pendingId = await overlayPendingId(page);
    // The other tab has started an answer, so it keeps its draft and says what happened.
    await other.getByTestId('clarification-custom').fill('A file of our own');

    await page.bringToFront();
    const overlay = page.getByTestId('clarification-overlay');
    await overlay.getByTestId('question-cancel').click();
    const confirm = overlay.getByTestId('question-cancel-confirm');
    await expect(confirm.textContent()).resolves.toContain(
      'The agent stops waiting and is told the question was cancelled',
    );
    await expect(confirm.getAttribute('role')).resolves.toBe('group');
    await suite.shoot(page, 'question-cancel-confirm-desktop');
    expect(cancels).toHaveLength(0);
    await confirm.getByTestId('question-cancel-yes').click();

    const done = banner(page, 'cancelled');
    await done.waitFor(WAIT);
    await expect(done.textContent()).resolves.toContain(
      'Question cancelled. The agent was told it was cancelled.',
    );
    await overlay.waitFor({ state: 'detached', ...WAIT });
    expect(cancels).toHaveLength(1);
    await expect(bundleOf(pendingId)).resolves.toMatchObject({
      status: 'cancelled',
      active: false,
    });
    // The agent's wait ended and it said so in its reply.
    await until(
      () => agentReplies(world, created.session.id),
      (replies) => replies.some((reply) => reply.includes('no longer open')),
    );

    const person = await me();
    const row = page.locator('[data-testid="question-row"][data-status="cancelled"]');
    await row.waitFor(WAIT);
    await expect(row.getByTestId('decided-by').textContent()).resolves.toBe(
      `By ${person.name} (web app)`,
    );
    // The agent's ask ended as the person decided, which its chip says rather than "Failed".
    const ask = page
      .getByTestId('message')
      .filter({ hasText: 'Asking you a question' })
      .locator('[data-testid="tool-status"][data-status="failed"]');
    await ask.waitFor(WAIT);
    await expect(ask.textContent()).resolves.toBe('Cancelled');

    // The other tab: who cancelled, with its draft kept; and the same row in its transcript.
    const kept = banner(other, 'late-kept');
    await kept.waitFor(WAIT);
    await expect(kept.getAttribute('data-cause')).resolves.toBe('cancelled_another_tab');
    await expect(kept.textContent()).resolves.toContain(
      'You cancelled this question in another tab.',
    );
    await expect(
      other
        .locator('[data-testid="question-row"][data-status="cancelled"]')
        .getByTestId('decided-by')
        .textContent(),
    ).resolves.toBe(`By ${person.name} (web app)`);
    await suite.shoot(other, 'question-cancel-other-tab');

    // The decision log: the cancel, with who and where.
    const log = await api<{ decisions: DecisionEntry[] }>(
      world,
      'GET',
      `/api/v1/decisions?task_id=${created.task.id}`,
    );
    expect(log.decisions).toMatchObject([
      {
        kind: 'question',
        outcome: 'cancelled',
        session_id: created.session.id,
        responded_by: { user_id: person.id, name: person.name, surface: 'web' },
      },
    ]);
    await page.goto(`${world.origin}/decisions`);
    const entry = page
      .getByTestId('decision-item')
      .filter({ hasText: 'Cancel from the overlay' })
      .first();
    await entry.waitFor(WAIT);
    await expect(entry.getByTestId('decision-outcome').textContent()).resolves.toBe('Cancelled');
    await expect(entry.getByTestId('decided-by').textContent()).resolves.toBe(
      `By ${person.name} (web app)`,
    );
    await context.close();
  });

  it('changes nothing when the confirmation is closed, and keeps keys inside it (keyboard only)', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel thought better of', '/ask');
    const { context, page } = await suite.desktop();
    const cancels = recordCancels(page);
    await openSession(world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    const opener = page.getByTestId('question-cancel');
    await expect(opener.getAttribute('type')).resolves.toBe('button');
    await expect(opener.textContent()).resolves.toBe('Cancel question');

    await opener.focus();
    await page.keyboard.press('Enter');
    const keep = page.getByTestId('question-cancel-keep');
    await keep.waitFor(WAIT);
    // The safe choice has focus, and a digit pressed here picks no option behind it.
    await page.locator('[data-testid="question-cancel-keep"]:focus').waitFor(WAIT);
    await page.keyboard.press('1');
    await expect(option(page, 'Generated').getAttribute('aria-checked')).resolves.toBe('false');
    await page.keyboard.press('Enter');
    await page.getByTestId('question-cancel-confirm').waitFor({ state: 'detached', ...WAIT });
    await page.locator('[data-testid="question-cancel"]:focus').waitFor(WAIT);

    await settleRequests(page);
    expect(cancels).toHaveLength(0);
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'pending', active: true });
    await expect(pendingIds(world, created.session.id)).resolves.toEqual([pendingId]);
    expect(await page.getByTestId('clarification-banner').count()).toBe(0);

    // The question is still live and answerable here.
    await option(page, 'Hand-written').click();
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);
    await context.close();
  });

  it('explains a refusal when no agent waits any more, and the question can still be answered', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel after the agent moved on', '/ask');
    const { context, page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    const held = await holdFirst(page, CANCEL);
    await page.getByTestId('question-cancel').click();
    await page.getByTestId('question-cancel-yes').click();
    await held.arrived;
    await banner(page, 'cancelling').waitFor(WAIT);

    // Meanwhile the agent's turn is stopped: nobody waits on the question, which stays open.
    await api(world, 'POST', `/api/v1/sessions/${created.session.id}/cancel`);
    await until(
      () => bundleOf(pendingId),
      (bundle) => bundle.detached && bundle.active,
    );
    held.release();

    const refusal = page.getByTestId('question-cancel-refusal');
    await refusal.waitFor(WAIT);
    await expect(refusal.getAttribute('data-kind')).resolves.toBe('not_waiting');
    await expect(refusal.textContent()).resolves.toContain(
      'no agent waits on this question any more, so there is nothing to cancel. You can still answer it or skip it.',
    );
    await expect(refusal.getAttribute('role')).resolves.toBe('alert');
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'pending', active: true });
    // A question nobody waits on offers no cancel; it can still be answered.
    await page.getByText('The agent has moved on; your answer will resume it.').waitFor(WAIT);
    expect(await page.getByTestId('question-cancel').count()).toBe(0);
    await suite.shoot(page, 'question-cancel-not-waiting');

    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);
    expect(await page.getByTestId('question-cancel-refusal').count()).toBe(0);
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'answered' });
    await context.close();
  });

  it('follows an answer that won the race against the cancel, and says who answered', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel after an answer', '/ask');
    const { context, page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    await page.getByTestId('clarification-custom').fill('Half an answer of mine');
    const held = await holdFirst(page, CANCEL);
    await page.getByTestId('question-cancel').click();
    await page.getByTestId('question-cancel-yes').click();
    await held.arrived;

    // The person answers through the API meanwhile; the cancel then finds nothing to cancel.
    await api(world, 'POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    await until(
      () => bundleOf(pendingId),
      (bundle) => bundle.status === 'answered',
    );
    held.release();

    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    await expect(kept.getAttribute('data-cause')).resolves.toBe('you_elsewhere');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'Half an answer of mine',
    );
    expect(await page.getByTestId('question-cancel').count()).toBe(0);
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'answered' });
    await context.close();
  });

  it('keeps the question when the cancel does not reach the server, and Retry cancels it', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel over a bad connection', '/ask');
    const { context, page } = await suite.desktop();
    await openSession(world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    await liveRoute(page, CANCEL, (route) => route.abort('connectionreset'));
    await page.getByTestId('question-cancel').click();
    await page.getByTestId('question-cancel-yes').click();

    const refusal = page.getByTestId('question-cancel-refusal');
    await refusal.waitFor(WAIT);
    await expect(refusal.getAttribute('data-kind')).resolves.toBe('failed');
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'pending', active: true });
    await expect(page.getByTestId('clarification-overlay').isVisible()).resolves.toBe(true);

    await page.unroute(CANCEL);
    await refusal.getByRole('button', { name: 'Retry' }).click();
    await banner(page, 'cancelled').waitFor(WAIT);
    await expect(bundleOf(pendingId)).resolves.toMatchObject({ status: 'cancelled' });
    await context.close();
  });

  it('keeps the keyboard on Cancel question while the cancel it confirmed goes', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel by keyboard', '/ask');
    const { context, page } = await suite.desktop();
    const cancels = recordCancels(page);
    await openSession(world, page, created.session.id);
    const held = await holdFirst(page, CANCEL);
    await page.getByTestId('question-cancel').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('question-cancel-yes').focus();
    await page.keyboard.press('Enter');
    await held.arrived;
    const focused = () =>
      page.evaluate(`(() => {
        const active = document.activeElement;
        return active?.getAttribute('data-testid') + ' busy=' + active?.getAttribute('aria-disabled');
      })()`);
    // The step goes as the cancel starts: Cancel question stands for it, busy, meanwhile.
    await expect.poll(focused, WAIT).toBe('question-cancel busy=true');
    await page.keyboard.press('Enter');
    await settleRequests(page);
    expect(cancels).toHaveLength(1);
    await expect(page.getByTestId('question-cancel-confirm').count()).resolves.toBe(0);
    held.release();
    await banner(page, 'cancelled').waitFor(WAIT);
    await context.close();
  });

  it('cancels a question answered inline in the inbox, and keeps the outcome there (phone)', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Cancel from the inbox', '/ask');
    const [pendingId] = await pendingIds(world, created.session.id);
    const { context, page } = await suite.phone();
    await page.goto(`${world.origin}/`);
    const row = page.locator(`[data-triage-key="${pendingId ?? ''}"]`);
    await row.getByTestId('question-cancel').waitFor(WAIT);
    await row.getByTestId('question-cancel').tap();
    await expect(row.getByTestId('question-cancel-confirm').textContent()).resolves.toContain(
      'is told the question was cancelled',
    );
    await suite.shoot(page, 'question-cancel-confirm-inbox-phone');
    await row.getByTestId('question-cancel-yes').tap();
    const done = row.locator('[data-testid="clarification-banner"][data-state="cancelled"]');
    await done.waitFor(WAIT);
    await expect(bundleOf(pendingId ?? '')).resolves.toMatchObject({ status: 'cancelled' });
    await done.getByRole('button', { name: 'Close' }).tap();
    await row.waitFor({ state: 'detached', ...WAIT });
    await context.close();
  });
});
