/**
 * "Answer in a new message" in Chromium against the real server and demo
 * agent: every historical question in the transcript offers it, with the
 * same question form as the overlay; it says it sends a new message, sends
 * exactly one with the formatted answer (one admission key across retries
 * and a reload), never calls the respond endpoint, and gives focus back to
 * the button that opened it.
 */
import { describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { api, askingTask } from './support/harness.js';
import {
  agentReplies,
  MESSAGES,
  option,
  recordRequests,
  sessionState,
  useSuite,
  until,
  userMessages,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const FORM = 'late-answer-form';

describe('answering a historical question in a new message', () => {
  const suite = useSuite();

  async function respond(pendingId: string, body: unknown): Promise<void> {
    await api(suite.world, 'POST', `/api/v1/clarification/${pendingId}/respond`, body);
  }

  async function pendingIdOf(sessionId: string): Promise<string> {
    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      suite.world,
      'GET',
      '/api/v1/pending',
    );
    const bundle = pending.bundles.find((candidate) => candidate.session_id === sessionId);
    if (!bundle) throw new Error('no pending bundle');
    return bundle.pending_id;
  }

  async function settled(created: { session: { id: string }; task: { id: string } }) {
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
  }

  /** A task whose agent asked `prompt`'s questions, decided with `body`, its turn over. */
  async function decidedTask(title: string, prompt: string, body: unknown) {
    const created = await askingTask(suite.world, title, prompt);
    await respond(await pendingIdOf(created.session.id), body);
    await settled(created);
    return created;
  }

  function row(page: Page, questionId: string) {
    return page.locator(`[data-testid="question-row"][data-question-id="${questionId}"]`);
  }

  /** The focused element's test ID and the question of the row it sits in. */
  function focused(page: Page): Promise<string> {
    return page.evaluate<string>(
      `(() => {
        const active = document.activeElement;
        const row = active?.closest('[data-testid="question-row"]');
        return \`\${active?.getAttribute('data-testid')} in \${row?.getAttribute('data-question-id')}\`;
      })()`,
    );
  }

  it('offers every answered question the inline form and sends one formatted message', async () => {
    const created = await decidedTask('History, answered', '/ask-multi', {
      answers: [
        { question_id: 'q1', selected_options: ['hosted'] },
        { question_id: 'q2', selected_options: ['lint'] },
        { question_id: 'q3', selected_options: ['node20'] },
      ],
    });
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await page.goto(`${suite.world.origin}/sessions/${created.session.id}`);

    const openers = page.getByTestId('late-answer-open');
    await row(page, 'q3').getByText('Answered: Node 20').waitFor(WAIT);
    // Answered over the API with the admin's token: the row says who and where.
    await expect(row(page, 'q3').getByTestId('decided-by').textContent()).resolves.toBe(
      'By admin (API)',
    );
    await expect(openers.allTextContents()).resolves.toEqual([
      'Answer in a new message',
      'Answer in a new message',
      'Answer in a new message',
    ]);

    // Escape closes the form without sending and gives focus back to its opener.
    await row(page, 'q1').getByTestId('late-answer-open').click();
    await page.getByTestId(FORM).waitFor(WAIT);
    await page.keyboard.press('Escape');
    await page.getByTestId(FORM).waitFor({ state: 'detached', ...WAIT });
    await expect(focused(page)).resolves.toBe('late-answer-open in q1');

    await row(page, 'q2').getByTestId('late-answer-open').click();
    const form = page.getByTestId(FORM);
    await form.waitFor(WAIT);
    await expect(form.textContent()).resolves.toContain(
      'This sends your answer to the agent as a new message.',
    );
    await expect(page.getByTestId('late-answer-send').textContent()).resolves.toBe(
      'Send as a new message',
    );
    // Right under the page's title in the outline, as the overlay's own heading is.
    await expect(
      form.getByRole('heading', { level: 2, name: 'Answer in a new message' }).count(),
    ).resolves.toBe(1);
    // The same form as the overlay: a stepper over the bundle, opened at the row's question.
    await expect(
      form.getByTestId('clarification-stepper').getByRole('button').count(),
    ).resolves.toBe(3);
    await expect(
      form.getByTestId('clarification-question').getAttribute('data-question-id'),
    ).resolves.toBe('q2');
    await expect(page.getByTestId('late-answer-send').isDisabled()).resolves.toBe(true);

    await option(page, 'Build', FORM).click();
    await form.getByRole('button', { name: 'Go to question 1' }).click();
    await option(page, 'Self-hosted', FORM).click(); // a pick never sends by itself
    await form.getByRole('button', { name: 'Go to question 3' }).click();
    await form.getByTestId('clarification-custom').fill('Node 24 only');
    expect(recorded.messages).toHaveLength(0);
    await page.getByTestId('late-answer-send').click();

    const status = row(page, 'q2').getByTestId('late-answer-status');
    await status.waitFor(WAIT);
    await expect(status.textContent()).resolves.toBe('Your answer was sent as a new message.');
    await page.getByTestId(FORM).waitFor({ state: 'detached', ...WAIT });
    await expect(focused(page)).resolves.toBe('late-answer-open in q2');

    const formatted = [
      'Which CI runner should the pipeline use?\nSelf-hosted',
      'Which checks should run on every pull request?\nBuild',
      'Which Node.js versions should the pipeline test?\nNode 24 only',
    ].join('\n\n');
    expect(recorded.messages.map((message) => message.text)).toEqual([formatted]);
    expect(recorded.responds).toEqual([]);
    const replies = await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.includes(`You said: ${formatted}`),
    );
    expect(replies.filter((reply) => reply === `You said: ${formatted}`)).toHaveLength(1);
    // The question itself keeps the answer it had.
    await expect(row(page, 'q1').locator('.question-outcome').textContent()).resolves.toBe(
      'Answered: Hosted',
    );
    await context.close();
  });

  it('lists the answers in the decision log with who and where, and opens their session', async () => {
    const created = await decidedTask('Decision log', '/ask', {
      answers: [{ question_id: 'q1', selected_options: ['hand_written'] }],
    });
    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/`);
    await page.getByTestId('decisions-link').click();
    const newest = page.getByTestId('decision-item').first();
    await newest.waitFor(WAIT);
    await expect(newest.getByTestId('decision-outcome').textContent()).resolves.toBe(
      'Answered: Hand-written',
    );
    await expect(newest.getByTestId('decided-by').textContent()).resolves.toBe('By admin (API)');
    await expect(newest.locator('time').getAttribute('datetime')).resolves.toMatch(/Z$/);
    await newest.getByRole('link', { name: 'Decision log' }).click();
    await page.waitForURL(`**/sessions/${created.session.id}`, WAIT);
    await context.close();
  });

  it('keeps one admission key across a lost reply, a failure and a reload, so one message lands', async () => {
    const created = await decidedTask('History, skipped', '/ask', {
      rejected: true,
      reject_reason: 'not now',
    });
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    let attempts = 0;
    await liveRoute(page, MESSAGES, async (route: Route) => {
      if (route.request().method() !== 'POST') {
        await route.continue();
        return;
      }
      attempts++;
      if (attempts === 1) {
        // The server admits it, but the reply never reaches the page.
        await route.fetch();
        await route.abort('failed');
      } else if (attempts === 2) {
        await route.abort('failed');
      } else {
        await route.continue();
      }
    });
    await page.goto(`${suite.world.origin}/sessions/${created.session.id}`);
    await row(page, 'q1').getByText('Skipped', { exact: true }).waitFor(WAIT);

    const formatted = 'How should I create the configuration file?\nNo file';
    const openAndSend = async () => {
      await row(page, 'q1').getByTestId('late-answer-open').click();
      await option(page, 'No file', FORM).click();
      await page.getByTestId('late-answer-send').click();
    };
    await openAndSend();
    const error = page.getByTestId('late-answer-error');
    await error.waitFor(WAIT);
    await expect(option(page, 'No file', FORM).getAttribute('aria-checked')).resolves.toBe('true');

    await page.getByTestId('late-answer-send').click(); // a retry, from the kept draft
    await until(
      () => Promise.resolve(attempts),
      (count) => count === 2,
    );
    await error.waitFor(WAIT);

    await page.reload(); // a remount: the key survives in the tab's session storage
    await openAndSend();
    await row(page, 'q1').getByTestId('late-answer-status').waitFor(WAIT);

    expect(recorded.messages.map((message) => message.text)).toEqual([
      formatted,
      formatted,
      formatted,
    ]);
    const keys = new Set(recorded.messages.map((message) => message.admission_key));
    expect(keys.size).toBe(1);
    await settled(created);
    const sent = await userMessages(suite.world, created.session.id);
    expect(sent.filter((text) => text === formatted)).toHaveLength(1);
    const replies = await agentReplies(suite.world, created.session.id);
    expect(replies.filter((reply) => reply === `You said: ${formatted}`)).toHaveLength(1);
    expect(recorded.responds).toEqual([]);
    await context.close();
  });

  it('says an edit was not sent when its key already carried the first version, and sends it with a new key', async () => {
    const created = await decidedTask('History, edited', '/ask', {
      rejected: true,
      reject_reason: 'not now',
    });
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    let attempts = 0;
    await liveRoute(page, MESSAGES, async (route: Route) => {
      if (route.request().method() === 'POST' && ++attempts === 1) {
        // The server admits the first version, but its reply never reaches the page.
        await route.fetch();
        await route.abort('failed');
        return;
      }
      await route.continue();
    });
    await page.goto(`${suite.world.origin}/sessions/${created.session.id}`);
    await row(page, 'q1').getByText('Skipped', { exact: true }).waitFor(WAIT);
    await row(page, 'q1').getByTestId('late-answer-open').click();
    await option(page, 'No file', FORM).click();
    await page.getByTestId('late-answer-send').click();
    const error = page.getByTestId('late-answer-error');
    await error.waitFor(WAIT);

    // The person changes their mind before sending again.
    await option(page, 'Generated', FORM).click();
    await page.getByTestId('late-answer-send').click();
    await expect
      .poll(() => error.textContent(), WAIT)
      .toContain('An earlier version of this answer was already sent; this one was not.');
    await page.getByTestId('late-answer-send').click();
    await row(page, 'q1').getByTestId('late-answer-status').waitFor(WAIT);

    const question = 'How should I create the configuration file?';
    const [first, edit, again] = recorded.messages;
    expect(recorded.messages.map((message) => message.text)).toEqual([
      `${question}\nNo file`,
      `${question}\nGenerated`,
      `${question}\nGenerated`,
    ]);
    expect(edit?.admission_key).toBe(first?.admission_key);
    expect(again?.admission_key).not.toBe(first?.admission_key);
    await settled(created);
    const sent = await userMessages(suite.world, created.session.id);
    expect(sent.filter((text) => text.startsWith(question))).toEqual([
      `${question}\nNo file`,
      `${question}\nGenerated`,
    ]);
    await context.close();
  });
});
