/**
 * A half-answered multi-question ask keeps its draft, as the composer does:
 * going back to the inbox and opening the task again (no reload) and a
 * reload both show the picks and the custom text; once the question is
 * answered the kept draft is gone from the tab's storage. In Debian's
 * Chromium against a real server and the demo agent.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { askingTask } from './support/harness.js';
import { openSession, option, useSuite, WAIT } from './support/clarification-pages.js';

describe('a question’s kept draft', () => {
  const suite = useSuite();

  const answered = (page: Page) => page.getByTestId('clarification-answered').textContent();

  // A string, so the test's types need no DOM: it runs in the page.
  const keptKeys = (page: Page) =>
    page.evaluate<string[]>(
      "Object.keys(sessionStorage).filter((key) => key.startsWith('clarion.question-draft.'))",
    );

  it('survives the inbox and a reload, and goes once the question is answered', async () => {
    const created = await askingTask(suite.world, 'Draft kept', '/ask-multi');
    const { context, page } = await suite.desktop();
    await openSession(suite.world, page, created.session.id);
    await option(page, 'Self-hosted').click(); // advances to the checks
    await option(page, 'Lint').click();
    await page.getByTestId('clarification-custom').fill('and the e2e suite');
    await expect(answered(page)).resolves.toBe('2 of 3 answered');

    await page.getByRole('link', { name: /Back to inbox/ }).click();
    await page.getByTestId('inbox-item').filter({ hasText: 'Draft kept' }).waitFor(WAIT);
    await page.getByTestId('task-link').filter({ hasText: 'Draft kept' }).first().click();
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(answered(page)).resolves.toBe('2 of 3 answered');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'and the e2e suite',
    );

    await page.reload();
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(answered(page)).resolves.toBe('2 of 3 answered');
    await expect(option(page, 'Lint').getAttribute('aria-checked')).resolves.toBe('true');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'and the e2e suite',
    );
    const keys = await keptKeys(page);
    expect(keys).toHaveLength(1);

    await page.getByTestId('clarification-next').click();
    await option(page, 'Node 22').click();
    await page.getByTestId('clarification-submit').click();
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => keptKeys(page), { timeout: 10_000 }).toEqual([]);
    await context.close();
  });
});
