/**
 * Clarification races in Chromium against the real server and demo agent:
 * a lost race shows the winner's answers; a detached question's answer
 * resumes the agent once; an answer to a question a newer turn superseded
 * becomes one ordinary message (sent, or queued behind a busy session, with
 * the draft kept when admission is refused); a Skip of it, timeouts and
 * server errors never become messages; a person who lost access meanwhile
 * is told so, not that the question timed out.
 *
 * Races are made real by holding the page's own request at the browser's
 * edge while the test acts through the REST API, then letting it go on to
 * the server, which decides.
 */
import { describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { ADMIN_TOKEN, api, askingTask, signedInPage } from './support/harness.js';
import {
  agentReplies,
  agentSaid,
  banner,
  holdFirst,
  MESSAGES,
  openSession,
  option,
  overlayPendingId,
  pendingIds,
  recordRequests,
  RESPOND,
  sendMessage,
  sessionState,
  useSuite,
  until,
  userMessages,
  WAIT,
} from './support/clarification-pages.js';
import { scriptRoute } from './support/scripted-route.js';
import { quickDetachEnv } from '../support/quick-detach.js';
import { liveRoute } from './support/live-route.js';

const CONFIG_PROMPT = 'How should I create the configuration file?';
const RESUMED = 'You previously asked the user, and they have now answered:';

describe('clarification races in Chromium', () => {
  const suite = useSuite({}, quickDetachEnv());

  /** A task whose question has detached: the agent's turn ended and the session is idle. */
  async function detachedTask(title: string) {
    const created = await askingTask(suite.world, title, '/ask-detach');
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    return created;
  }

  it('shows the winner’s answers when another responder claims first, and the agent gets one answer', async () => {
    const created = await askingTask(suite.world, 'Lost race', '/ask');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const held = await holdFirst(page, RESPOND);
    await openSession(suite.world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    const ownResponse = page.waitForResponse((response) => response.url().endsWith('/respond'));

    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    const winner = await api<{ claimed: boolean }>(
      suite.world,
      'POST',
      `/api/v1/clarification/${pendingId}/respond`,
      { answers: [{ question_id: 'q1', selected_options: ['hand_written'] }] },
    );
    expect(winner.claimed).toBe(true);
    held.release();

    const body = (await (await ownResponse).json()) as { claimed: boolean; status: string };
    expect(body).toMatchObject({ claimed: false, status: 'answered' });
    const lost = banner(page, 'winner');
    await lost.waitFor(WAIT);
    // The script answers with the same person's token, through REST: their own answer elsewhere.
    await expect(lost.getAttribute('data-by')).resolves.toBe('you_elsewhere');
    await expect(lost.textContent()).resolves.toContain('You already answered this elsewhere:');
    await expect(lost.locator('.winner-answers').textContent()).resolves.toBe(
      `${CONFIG_PROMPT} Hand-written`,
    );
    await expect(page.locator('[role="alert"]').count()).resolves.toBe(0);
    await expect(page.getByTestId('clarification-overlay').count()).resolves.toBe(0);

    await agentSaid(page, 'Answer to q1: "Hand-written"').waitFor(WAIT);
    const replies = await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.some((reply) => reply.startsWith('Answer to')),
    );
    expect(replies.filter((reply) => reply.startsWith('Answer to'))).toEqual([
      'Answer to q1: "Hand-written"',
    ]);
    await page
      .getByTestId('question-row')
      .getByText('Answered: Hand-written', { exact: true })
      .waitFor(WAIT);
    expect(recorded.responds).toHaveLength(1);
    expect(recorded.messages).toHaveLength(0);
    await context.close();
  });

  it('tells a person removed from the workspace the question is no longer theirs, not that it timed out', async () => {
    const { world, browser } = suite;
    const created = await askingTask(world, 'Removed while answering', '/ask');
    const dan = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Dan',
    });
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    const workspace = workspaces[0]?.id ?? '';
    await api(world, 'POST', `/api/v1/workspaces/${workspace}/members`, {
      user_id: dan.user.id,
      role: 'member',
    });
    const page = await signedInPage(world, browser, dan.user.id);
    const held = await holdFirst(page, RESPOND);
    await openSession(world, page, created.session.id);
    const pendingId = await overlayPendingId(page);
    const ownResponse = page.waitForResponse((response) => response.url().endsWith('/respond'));

    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    const removed = await fetch(
      `${world.clarion.url}/api/v1/workspaces/${workspace}/members/${dan.user.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(removed.ok).toBe(true);
    held.release();
    await expect(ownResponse.then((response) => response.status())).resolves.toBe(404);

    // In no workspace now: the page says only that the session is no longer his, with
    // nothing left to answer (the banner of the refused answer goes with the rest).
    const lost = page.locator('[data-testid="session-missing"][data-presence="access_lost"]');
    await lost.waitFor(WAIT);
    await expect(lost.textContent()).resolves.toContain(
      'This session is no longer available to you',
    );
    await expect(banner(page, 'expired').count()).resolves.toBe(0);
    await expect(page.getByText('moved on').count()).resolves.toBe(0);
    await expect(page.getByTestId('clarification-overlay').count()).resolves.toBe(0);
    // Still waiting for everyone else.
    expect(await pendingIds(world, created.session.id)).toEqual([pendingId]);
    await api(world, 'POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    await page.context().close();
  });

  it('says a detached question will resume the agent, and the answer resumes it once', async () => {
    const created = await askingTask(suite.world, 'Detached', '/ask-detach');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);

    const detached = banner(page, 'detached');
    await detached.waitFor(WAIT);
    // Neutral ('Agent moved on') until the session's read says Clarion runs its agent.
    await expect
      .poll(() => detached.textContent(), WAIT)
      .toBe('The agent has moved on; your answer will resume it.');
    await agentSaid(page, 'I will continue when you answer.').waitFor(WAIT);
    await page.locator('[data-testid="session-state"][data-state="idle"]').waitFor(WAIT);

    await option(page, 'No file').click();
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);
    await agentSaid(page, 'A1: The user selected "No file".').waitFor(WAIT);
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    const replies = await agentReplies(suite.world, created.session.id);
    expect(replies.filter((reply) => reply.includes(RESUMED))).toHaveLength(1);
    expect(recorded.responds).toHaveLength(1);
    expect(recorded.messages).toHaveLength(0);
    await context.close();
  });

  it('sends an answer to a superseded question as one new message when the session is free', async () => {
    const created = await detachedTask('Superseded, idle');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const held = await holdFirst(page, RESPOND);
    await openSession(suite.world, page, created.session.id);
    const ownResponse = page.waitForResponse((response) => response.url().endsWith('/respond'));

    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    // A newer turn starts while the answer is on its way: the question is superseded.
    await sendMessage(suite.world, created.session.id, 'let us talk about something else');
    await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.includes('You said: let us talk about something else'),
    );
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    held.release();

    expect((await ownResponse).status()).toBe(409);
    const formatted = `${CONFIG_PROMPT}\nGenerated`;
    await banner(page, 'late-sent').waitFor(WAIT);
    await agentSaid(page, `You said: ${CONFIG_PROMPT}`).waitFor(WAIT);
    expect(recorded.messages.map((message) => message.text)).toEqual([formatted]);
    const sent = await userMessages(suite.world, created.session.id);
    expect(sent.filter((text) => text === formatted)).toHaveLength(1);
    await expect(page.getByTestId('clarification-overlay').count()).resolves.toBe(0);
    await context.close();
  });

  it('keeps the draft when the new message is refused, then queues it once behind a busy session', async () => {
    const created = await detachedTask('Superseded, busy');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const held = await holdFirst(page, RESPOND);
    let admissions = 0;
    await liveRoute(page, MESSAGES, async (route: Route) => {
      if (route.request().method() === 'POST' && ++admissions === 1) {
        await route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({
            error: 'the session cannot take messages',
            code: 'conflict',
            details: { reason: 'session_ended' },
          }),
        });
        return;
      }
      await route.continue();
    });
    await openSession(suite.world, page, created.session.id);
    const oldId = await overlayPendingId(page);

    await option(page, 'Hand-written').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    // The newer turn asks again, so the session waits for input and new messages queue.
    await sendMessage(suite.world, created.session.id, '/ask Which database should I use?');
    const newId = (
      await until(
        () => pendingIds(suite.world, created.session.id),
        (ids) => ids.some((id) => id !== oldId),
      )
    ).find((id) => id !== oldId);
    held.release();

    const refused = banner(page, 'late-failed');
    await refused.waitFor(WAIT);
    await expect(refused.textContent()).resolves.toContain('no longer takes messages');
    const overlay = page.getByTestId('clarification-overlay');
    await expect(overlay.getAttribute('data-pending-id')).resolves.toBe(oldId);
    await expect(overlay.getAttribute('data-mode')).resolves.toBe('message');
    await expect(option(page, 'Hand-written').getAttribute('aria-checked')).resolves.toBe('true');
    await suite.shoot(page, 'late-answer-refused');

    await page.getByTestId('clarification-submit').click();
    const formatted = `${CONFIG_PROMPT}\nHand-written`;
    await page.getByTestId('queue').getByText('Hand-written').waitFor(WAIT);
    expect(recorded.messages).toHaveLength(2);
    expect(recorded.messages.map((message) => message.text)).toEqual([formatted, formatted]);
    expect(recorded.messages[1]?.admission_key).toBe(recorded.messages[0]?.admission_key);
    const queue = await api<{ items: { text: string }[] }>(
      suite.world,
      'GET',
      `/api/v1/sessions/${created.session.id}/queue`,
    );
    expect(queue.items.map((item) => item.text)).toEqual([formatted]);

    // The newer question takes the overlay, with a fresh draft of its own.
    await page
      .locator(`[data-testid="clarification-overlay"][data-pending-id="${String(newId)}"]`)
      .waitFor(WAIT);
    await expect(overlay.getAttribute('data-mode')).resolves.toBe('respond');
    await expect(page.getByText('Which database should I use?').count()).resolves.toBeGreaterThan(
      0,
    );
    await expect(option(page, 'Hand-written').getAttribute('aria-checked')).resolves.toBe('false');
    await page
      .locator('[data-testid="session-state"][data-state="waiting_for_input"]')
      .waitFor(WAIT);
    expect(recorded.responds).toHaveLength(1);
    await context.close();
  });

  it('sends nothing when a superseded question is skipped', async () => {
    const created = await detachedTask('Superseded skip');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const held = await holdFirst(page, RESPOND);
    await openSession(suite.world, page, created.session.id);

    await page.getByTestId('clarification-skip').click();
    await page.getByTestId('clarification-skip-confirm-yes').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    await sendMessage(suite.world, created.session.id, 'never mind');
    await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.includes('You said: never mind'),
    );
    held.release();

    await banner(page, 'expired').waitFor(WAIT);
    expect(recorded.responds).toEqual([{ rejected: true }]);
    expect(recorded.messages).toHaveLength(0);
    await expect(userMessages(suite.world, created.session.id)).resolves.toEqual([
      '/ask-detach',
      'never mind',
    ]);
    await context.close();
  });

  it('never turns a server error, a malformed reply or a timeout into a message', async () => {
    const created = await askingTask(suite.world, 'Errors are not late answers', '/ask');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    const responds = await scriptRoute(page, RESPOND, ['internal', 'malformed', 'silent']);
    await openSession(suite.world, page, created.session.id, '?respond_deadline_ms=1000');
    const error = banner(page, 'error');

    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await error.waitFor(WAIT);
    await error.getByRole('button', { name: 'Retry' }).click();
    await until(
      () => Promise.resolve(responds.attempts),
      (count) => count === 2,
    );
    await error.waitFor(WAIT);
    await error.getByRole('button', { name: 'Retry' }).click();
    await banner(page, 'submitting').waitFor(WAIT);
    await error.waitFor(WAIT);
    expect(responds.attempts).toBe(3);
    expect(recorded.messages).toHaveLength(0);
    await expect(option(page, 'Generated').getAttribute('aria-checked')).resolves.toBe('true');

    await error.getByRole('button', { name: 'Retry' }).click();
    await agentSaid(page, 'Answer to q1: "Generated"').waitFor(WAIT);
    expect(recorded.messages).toHaveLength(0);
    await expect(userMessages(suite.world, created.session.id)).resolves.toEqual(['/ask']);
    await context.close();
  });
});
