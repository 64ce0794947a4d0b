/**
 * One name for one thing: the inbox labels what waits with the decision
 * log's kinds, so a multi-question ask is a "Question" in the inbox as on the
 * Decisions page, and the Decisions page's Kind filter finds it under the
 * label the inbox showed. ("Form" is an elicitation form, its own kind.)
 */
import { describe, expect, it } from 'vitest';
import { api, askingTask, signedInPage } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

describe('the kind vocabulary of the inbox and the Decisions page', () => {
  const suite = useSuite();

  it('labels a multi-question ask as the Decisions page does, and its Kind filter finds it', async () => {
    const { world, browser } = suite;
    const created = await askingTask(world, 'Three questions', '/ask-multi');
    const page = await signedInPage(world, browser);
    const row = page.locator(`[data-testid="inbox-item"][data-session-id="${created.session.id}"]`);
    await row.waitFor(WAIT);
    const chip = row.getByTestId('triage-kind');
    const inboxLabel = (await chip.textContent()) ?? '';
    // Its count tells it from a single question, whose row gives none (triage.test).
    await expect(row.getByTestId('inbox-meta').textContent()).resolves.toBe('Questions: 3');

    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    const pendingId =
      pending.bundles.find((bundle) => bundle.session_id === created.session.id)?.pending_id ?? '';
    await api(world, 'POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: ['q1', 'q2', 'q3'].map((id) => ({ question_id: id, custom_text: 'as you like' })),
    });

    await page.goto(`${world.origin}/decisions`);
    const kindFilter = page.getByTestId('filter-kind');
    const value = await kindFilter
      .locator('option')
      .filter({ hasText: new RegExp(`^${inboxLabel}$`, 'u') })
      .getAttribute('value');
    await kindFilter.selectOption(value ?? '');
    // The filtered list, not the unfiltered one shown before the filter's reply.
    const others = page.locator(`[data-testid="decision-item"]:not([data-kind="${value ?? ''}"])`);
    await expect.poll(() => others.count(), WAIT).toBe(0);
    const items = page
      .locator(`[data-testid="decision-item"][data-kind="${value ?? ''}"]`)
      .filter({ hasText: 'Three questions' });
    await expect.poll(() => items.count(), WAIT).toBe(3);
    await page.context().close();
  });
});
