/**
 * Focus, keyboard and phone behaviour of the clarification UI in Chromium
 * against the real server and demo agent: Escape collapses locally (never a
 * rejection) and focus goes to the composer; shortcuts act only while the
 * overlay has focus and not while a request is in flight; the Skip step
 * opens into focus and keeps its reason across Escape; Enter and
 * Shift+Enter on desktop; skip, Retry and the transcript's form at phone
 * size with 44 px targets and no sideways scrolling.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { askingTask } from './support/harness.js';
import {
  agentReplies,
  agentSaid,
  banner,
  holdFirst,
  openSession,
  option,
  overflowsHorizontally,
  pendingIds,
  recordRequests,
  RESPOND,
  sessionState,
  settleRequests,
  smallTargets,
  useSuite,
  until,
  WAIT,
} from './support/clarification-pages.js';
import { scriptRoute } from './support/scripted-route.js';

describe('clarification focus, keyboard and phone layout in Chromium', () => {
  const suite = useSuite();

  function focusedTestId(page: Page): Promise<string | null> {
    return page.evaluate<string | null>('document.activeElement?.dataset.testid ?? null');
  }

  function focusInOverlay(page: Page): Promise<boolean> {
    return page.evaluate<boolean>(
      'document.activeElement?.closest(\'[data-testid="clarification-overlay"]\') != null',
    );
  }

  function currentStep(page: Page): Promise<string | null> {
    return page
      .getByTestId('clarification-stepper')
      .locator('[aria-current="step"]')
      .getAttribute('aria-label');
  }

  it('collapses on Escape without rejecting, gives focus to the composer, and expands into focus', async () => {
    const created = await askingTask(suite.world, 'Escape is local', '/ask-multi');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);

    await option(page, 'Hosted').click(); // advances: the clicked option goes away
    await expect(focusInOverlay(page)).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await page.getByTestId('clarification-collapsed').waitFor(WAIT);
    await expect(focusedTestId(page)).resolves.toBe('composer-input');

    expect(recorded.responds).toEqual([]);
    await expect(pendingIds(suite.world, created.session.id)).resolves.toHaveLength(1);
    await expect(sessionState(suite.world, created.session.id, created.task.id)).resolves.toBe(
      'waiting_for_input',
    );

    await page.getByTestId('clarification-collapsed').click();
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(focusInOverlay(page)).resolves.toBe(true);
    await page.keyboard.press('2'); // step 2: Tests
    await expect(option(page, 'Tests').getAttribute('aria-checked')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('true');

    // The chevron collapses the same way.
    await page.getByTestId('clarification-collapse').click();
    await page.getByTestId('clarification-collapsed').waitFor(WAIT);
    await expect(focusedTestId(page)).resolves.toBe('composer-input');
    expect(recorded.responds).toEqual([]);
    await context.close();
  });

  it('opens the Skip step into focus, keeps it and its reason across Escape, and Cancel gives Skip the focus', async () => {
    const created = await askingTask(suite.world, 'Skip step keys', '/ask Which file?');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);

    await page.getByTestId('clarification-skip').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedTestId(page), WAIT).toBe('clarification-skip-confirm');
    await page.keyboard.press('Tab');
    await expect(focusedTestId(page)).resolves.toBe('clarification-skip-reason');
    await page.keyboard.type('later');

    // Escape collapses the overlay as anywhere in it; the step waits in it with its reason.
    await page.keyboard.press('Escape');
    await page.getByTestId('clarification-collapsed').waitFor(WAIT);
    await expect(focusedTestId(page)).resolves.toBe('composer-input');
    await page.getByTestId('clarification-collapsed').click();
    await expect(page.getByTestId('clarification-skip-reason').inputValue()).resolves.toBe('later');

    await page.getByTestId('clarification-skip-cancel').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedTestId(page), WAIT).toBe('clarification-skip');
    await settleRequests(page);
    expect(recorded.responds).toEqual([]);
    await context.close();
  });

  it('acts on shortcuts only while the overlay has focus, and not while submitting', async () => {
    const created = await askingTask(suite.world, 'Scoped shortcuts', '/ask-multi');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const held = await holdFirst(page, RESPOND);
    await openSession(suite.world, page, created.session.id);

    await page.getByTestId('composer-input').click();
    await page.keyboard.type('12');
    await expect(page.getByTestId('composer-input').inputValue()).resolves.toBe('12');
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('false');
    await expect(option(page, 'Self-hosted').getAttribute('aria-checked')).resolves.toBe('false');
    await page.keyboard.press('ArrowRight');
    await expect(currentStep(page)).resolves.toBe('Go to question 1');

    const custom = page.getByTestId('clarification-custom');
    await custom.click();
    await page.keyboard.type('1');
    await expect(custom.inputValue()).resolves.toBe('1');
    await expect(option(page, 'Hosted').getAttribute('aria-checked')).resolves.toBe('false');
    await custom.fill('');

    const overlay = page.getByTestId('clarification-overlay');
    await overlay.focus();
    await page.keyboard.press('1'); // Hosted, and on to question 2
    await page.keyboard.press('1'); // Lint
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('3'); // Both
    await expect(currentStep(page)).resolves.toBe('Go to question 3');
    await page.getByTestId('clarification-answered').getByText('3 of 3 answered').waitFor();

    await page.keyboard.press('Control+Enter');
    await held.arrived;
    const submit = page.getByTestId('clarification-submit');
    await expect(submit.textContent()).resolves.toBe('Submitting…');
    await expect(submit.locator('.spinner').count()).resolves.toBe(1);
    await overlay.focus();
    await page.keyboard.press('1');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+Enter');
    await expect(option(page, 'Both').getAttribute('aria-checked')).resolves.toBe('true');
    await expect(option(page, 'Node 20').getAttribute('aria-checked')).resolves.toBe('false');
    await expect(currentStep(page)).resolves.toBe('Go to question 3');
    held.release();

    await agentSaid(page, 'Answer to q3: "Both"').waitFor(WAIT);
    expect(recorded.responds).toHaveLength(1);
    expect(recorded.responds[0]).toMatchObject({
      answers: [
        { question_id: 'q1', selected_options: ['hosted'] },
        { question_id: 'q2', selected_options: ['lint'] },
        { question_id: 'q3', selected_options: ['both'] },
      ],
    });
    await context.close();
  });

  it('submits custom text with Enter and keeps Shift+Enter as a new line on desktop', async () => {
    const created = await askingTask(suite.world, 'Desktop Enter', '/ask');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    const custom = page.getByTestId('clarification-custom');
    await custom.click();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    await expect(custom.inputValue()).resolves.toBe('first line\nsecond line');
    expect(recorded.responds).toEqual([]);
    await page.keyboard.press('Enter');

    await agentSaid(page, 'Answer to q1: wrote "first line').waitFor(WAIT);
    expect(recorded.responds).toEqual([
      {
        answers: [
          { question_id: 'q1', selected_options: [], custom_text: 'first line\nsecond line' },
        ],
        rejected: false,
      },
    ]);
    const replies = await agentReplies(suite.world, created.session.id);
    expect(replies).toContain('Answer to q1: wrote "first line\nsecond line"');
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
    await expect(focusedTestId(page)).resolves.toBe('composer-input');
    await context.close();
  });

  it('skips at phone size with 44 px targets and no sideways scrolling', async () => {
    const created = await askingTask(suite.world, 'Phone skip', '/ask');
    const { context, page } = await suite.phone();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await expect(smallTargets(page, 'clarification-overlay')).resolves.toEqual([]);

    await page.getByTestId('clarification-skip').tap();
    await expect(smallTargets(page, 'clarification-skip-confirm')).resolves.toEqual([]);
    await page.getByTestId('clarification-skip-confirm-yes').tap();
    await page.getByTestId('send-now').tap();
    const skipped = banner(page, 'resolved');
    await skipped.waitFor(WAIT);
    await expect(skipped.textContent()).resolves.toContain('Questions skipped.');
    await expect(smallTargets(page, 'clarification-banner')).resolves.toEqual([]);
    // No reason given: none is made up in English on the person's behalf.
    expect(recorded.responds).toEqual([{ rejected: true }]);
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    await expect(overflowsHorizontally(page)).resolves.toBe(false);

    // The skipped question can still be answered in a new message, at phone size too.
    const opener = page.getByTestId('late-answer-open');
    const box = await opener.boundingBox();
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    await opener.tap();
    await page.getByTestId('late-answer-form').waitFor(WAIT);
    await expect(smallTargets(page, 'late-answer-form')).resolves.toEqual([]);
    await expect(overflowsHorizontally(page)).resolves.toBe(false);
    const custom = page.getByTestId('late-answer-form').getByTestId('clarification-custom');
    await custom.tap();
    await custom.pressSequentially('use env');
    await custom.press('Enter'); // a newline on touch, not a send
    await custom.pressSequentially('vars');
    expect(recorded.messages).toEqual([]);
    await suite.shoot(page, 'phone-late-answer-form', false);
    await page.getByTestId('late-answer-form').getByTestId('clarification-custom-send').tap();
    await page.getByTestId('late-answer-status').waitFor(WAIT);
    expect(recorded.messages.map((message) => message.text)).toEqual([
      'How should I create the configuration file?\nuse env\nvars',
    ]);
    await context.close();
  });

  it('retries at phone size: the answer is kept and Retry is a 44 px target', async () => {
    const created = await askingTask(suite.world, 'Phone retry', '/ask');
    const { context, page } = await suite.phone();
    const responds = await scriptRoute(page, RESPOND, ['unavailable']);
    await openSession(suite.world, page, created.session.id);
    await option(page, 'Hand-written').tap();
    await page.getByTestId('send-now').tap();
    const error = banner(page, 'error');
    await error.waitFor(WAIT);
    await expect(smallTargets(page, 'clarification-banner')).resolves.toEqual([]);
    await expect(smallTargets(page, 'clarification-overlay')).resolves.toEqual([]);
    await expect(overflowsHorizontally(page)).resolves.toBe(false);
    await expect(option(page, 'Hand-written').getAttribute('aria-checked')).resolves.toBe('true');
    await suite.shoot(page, 'phone-retry', false);

    await error.getByRole('button', { name: 'Retry' }).tap();
    await agentSaid(page, 'Answer to q1: "Hand-written"').waitFor(WAIT);
    expect(responds.attempts).toBe(2);
    await context.close();
  });
});
