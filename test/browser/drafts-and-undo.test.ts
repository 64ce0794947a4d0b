/**
 * Nothing typed is lost, and deliberate actions can be taken back (issue 15),
 * in Chromium against the real server and demo agent, on desktop and phone:
 * a draft survives another tab's answer, an operator's cancel and an expiry, and goes
 * as a new message or is discarded; its banner names who settled the question,
 * also when the page hears that after hearing the session moved on; the same
 * person racing themselves in two tabs is told "Answered in another tab";
 * Undo of a one-tap answer means the server never saw it; Skip carries the
 * person's own reason to the agent; an answer sent while the server is
 * unreachable is delivered once when the connection returns.
 */
import { describe, expect, it } from 'vitest';
import { UNDO_WINDOW_MS } from '../../web/src/model/respond.js';
import { scriptOutage } from './support/scripted-route.js';
import { api, askingTask, EVENTS_SOCKET } from './support/harness.js';
import {
  agentReplies,
  banner,
  holdFirst,
  openSession,
  option,
  pauseClock,
  overlayPendingId,
  pendingIds,
  recordRequests,
  type Recorded,
  RESPOND,
  sendMessage,
  sessionState,
  settleRequests,
  transcript,
  until,
  userMessages,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';
import { quickDetachEnv } from '../support/quick-detach.js';

const CONFIG_PROMPT = 'How should I create the configuration file?';

describe('drafts, undo and deliberate actions in Chromium', () => {
  const suite = useSuite({}, quickDetachEnv());

  /** The kept draft (a choice and custom text) arrived as one new message, and no answer was sent. */
  async function expectDraftSentOnce(sessionId: string, recorded: Recorded): Promise<void> {
    const sent = await until(
      () => userMessages(suite.world, sessionId),
      (all) => all.some((text) => text.includes('Only the fast checks, please')),
    );
    const draft = sent.filter((text) => text.includes('Only the fast checks, please'));
    expect(draft).toHaveLength(1);
    expect(draft[0]).toContain('Which CI runner should the pipeline use?\nHosted');
    expect(recorded.responds).toHaveLength(0);
  }

  it('keeps a draft when another tab answers, and sends it as a new message', async () => {
    const created = await askingTask(suite.world, 'Draft survives', '/ask-multi');
    const { context, page } = await suite.desktop();
    const other = await context.newPage();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await openSession(suite.world, other, created.session.id);

    // Back in the first tab, the person picks a runner and starts typing on the checks question.
    await page.bringToFront();
    await option(page, 'Hosted').click();
    await page.getByTestId('clarification-custom').fill('Only the fast checks, please');

    // The other tab answers every question and submits.
    await other.bringToFront();
    await option(other, 'Self-hosted').click();
    await option(other, 'Lint').click();
    await other.getByTestId('clarification-next').click();
    await option(other, 'Node 22').click();
    await other.getByTestId('clarification-submit').click();
    await banner(other, 'resolved').waitFor(WAIT);

    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    // The rows that say who settled it may follow the change that retired it.
    await kept.and(page.locator('[data-cause="another_tab"]')).waitFor(WAIT);
    await expect(kept.textContent()).resolves.toContain('Answered in another tab.');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'Only the fast checks, please',
    );
    await suite.shoot(page, 'draft-kept-desktop');
    expect(recorded.responds).toHaveLength(0);

    await page.getByTestId('clarification-submit').click();
    await banner(page, 'late-sent').waitFor(WAIT);
    await expectDraftSentOnce(created.session.id, recorded);
    await context.close();
  });

  it('discards a kept draft without sending anything (phone)', async () => {
    const created = await askingTask(suite.world, 'Draft discarded', '/ask-multi');
    const { context, page } = await suite.phone();
    const other = await context.newPage();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await openSession(suite.world, other, created.session.id);
    await page.bringToFront();
    await page.getByTestId('clarification-custom').fill('A runner of our own');

    await other.bringToFront();
    await other.getByTestId('clarification-skip').tap();
    await other.getByTestId('clarification-skip-confirm-yes').tap();
    await other.getByTestId('send-now').tap();
    await banner(other, 'resolved').waitFor(WAIT);

    await banner(page, 'late-kept').waitFor(WAIT);
    await suite.shoot(page, 'draft-kept-phone');
    await page.getByTestId('clarification-discard').tap();
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
    expect(recorded.messages).toHaveLength(0);
    expect(recorded.responds).toHaveLength(0);
    await context.close();
  });

  it('keeps a half-filled answer when an operator cancels the question, and sends it as a new message', async () => {
    const created = await askingTask(suite.world, 'Draft outlives a cancel', '/ask-multi');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await option(page, 'Hosted').click();
    await page.getByTestId('clarification-custom').fill('Only the fast checks, please');

    const pendingId = await overlayPendingId(page);
    await api(suite.world, 'POST', `/api/v1/clarification/${pendingId}/cancel`);

    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    // The operator's cancel went through REST with this person's own token.
    // The rows that say who settled it may follow the change that retired it.
    await kept.and(page.locator('[data-cause="cancelled_you_elsewhere"]')).waitFor(WAIT);
    await expect(kept.textContent()).resolves.toContain('You cancelled this question elsewhere.');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'Only the fast checks, please',
    );
    const send = page.getByTestId('clarification-submit');
    await expect(send.textContent()).resolves.toBe('Send as a new message');
    await expect(page.getByTestId('clarification-discard').isVisible()).resolves.toBe(true);
    await suite.shoot(page, 'draft-kept-cancelled-desktop');

    await send.click();
    await banner(page, 'late-sent').waitFor(WAIT);
    await expectDraftSentOnce(created.session.id, recorded);
    await context.close();
  });

  it('discards a draft kept after a cancel without sending anything (phone)', async () => {
    const created = await askingTask(suite.world, 'Cancelled draft discarded', '/ask');
    const { context, page } = await suite.phone();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await page.getByTestId('clarification-custom').fill('A file in the repository root');

    await api(suite.world, 'POST', `/api/v1/clarification/${await overlayPendingId(page)}/cancel`);
    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    // The rows that say who settled it may follow the change that retired it.
    await kept.and(page.locator('[data-cause="cancelled_you_elsewhere"]')).waitFor(WAIT);
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'A file in the repository root',
    );
    await suite.shoot(page, 'draft-kept-cancelled-phone');
    await page.getByTestId('clarification-discard').tap();
    await page.getByTestId('clarification-overlay').waitFor({ state: 'detached', ...WAIT });
    expect(recorded.messages).toHaveLength(0);
    expect(recorded.responds).toHaveLength(0);
    const typed = await userMessages(suite.world, created.session.id);
    expect(typed.some((text) => text.includes('A file in the repository root'))).toBe(false);
    await context.close();
  });

  it('names who cancelled a question once the page hears it, after hearing that the session moved on', async () => {
    const created = await askingTask(suite.world, 'Cause heard late', '/ask');
    const { context, page } = await suite.desktop();
    // The rows that say who cancelled arrive last, as they can when a reconnect's snapshots
    // land in another order: the session's own change first says the question no longer waits.
    const held: string[] = [];
    let toPage: ((frame: string) => void) | undefined;
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      const server = socket.connectToServer();
      toPage = (frame) => {
        socket.send(frame);
      };
      socket.onMessage((frame) => {
        server.send(frame);
      });
      server.onMessage((frame) => {
        if (typeof frame !== 'string') return;
        if (frame.includes('"message.updated"') && frame.includes('"status":"cancelled"')) {
          held.push(frame);
        } else {
          socket.send(frame);
        }
      });
    });
    await openSession(suite.world, page, created.session.id);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await page.getByTestId('clarification-custom').fill('Next to the package manifest');

    await api(suite.world, 'POST', `/api/v1/clarification/${await overlayPendingId(page)}/cancel`);
    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    expect(held).not.toHaveLength(0);
    for (const frame of held.splice(0)) toPage?.(frame);

    await kept.and(page.locator('[data-cause="cancelled_you_elsewhere"]')).waitFor(WAIT);
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'Next to the package manifest',
    );
    await context.close();
  });

  it('keeps a draft when the question expires (the conversation moved on) and sends it as a new message', async () => {
    const created = await askingTask(suite.world, 'Draft outlives an expiry', '/ask-detach');
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await page.getByTestId('clarification-custom').fill('Keep it in the repository');

    await sendMessage(suite.world, created.session.id, 'never mind');
    const kept = banner(page, 'late-kept');
    await kept.waitFor(WAIT);
    await expect(kept.getAttribute('data-cause')).resolves.toBe('expired');
    await expect(kept.textContent()).resolves.toContain('This question is no longer active.');
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'Keep it in the repository',
    );

    await page.getByTestId('clarification-submit').click();
    await banner(page, 'late-sent').waitFor(WAIT);
    await until(
      () => userMessages(suite.world, created.session.id),
      (all) => all.filter((text) => text.includes('Keep it in the repository')).length === 1,
    );
    expect(recorded.responds).toHaveLength(0);
    await context.close();
  });

  it('tells a person racing themselves in two tabs “Answered in another tab”', async () => {
    const created = await askingTask(suite.world, 'Own race', '/ask');
    const { context, page } = await suite.desktop();
    const other = await context.newPage();
    const held = await holdFirst(page, RESPOND);
    await openSession(suite.world, page, created.session.id);
    await openSession(suite.world, other, created.session.id);

    await page.bringToFront();
    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    await held.arrived;
    await other.bringToFront();
    await option(other, 'Hand-written').click();
    await other.getByTestId('send-now').click();
    await banner(other, 'resolved').waitFor(WAIT);
    held.release();

    const lost = banner(page, 'winner');
    await lost.waitFor(WAIT);
    await expect(lost.getAttribute('data-by')).resolves.toBe('another_tab');
    await expect(lost.textContent()).resolves.toContain('Answered in another tab:');
    await expect(lost.textContent()).resolves.not.toContain('Someone else');
    await expect(lost.locator('.winner-answers').textContent()).resolves.toBe(
      `${CONFIG_PROMPT} Hand-written`,
    );
    await context.close();
  });

  for (const size of ['desktop', 'phone'] as const) {
    it(`Undo cancels a one-tap answer before the server sees it (${size})`, async () => {
      const created = await askingTask(suite.world, `Undo ${size}`, '/ask');
      const { context, page } = await suite[size]();
      // The page's clock stops around the window, and the test moves it past the edge instead of waiting.
      await page.clock.install();
      const recorded = recordRequests(page);
      await openSession(suite.world, page, created.session.id);
      const pendingId = await overlayPendingId(page);
      await pauseClock(page);

      await (size === 'phone'
        ? option(page, 'Generated').tap()
        : option(page, 'Generated').click());
      const undo = banner(page, 'undo');
      await undo.waitFor(WAIT);
      await suite.shoot(page, `undo-${size}`);
      await (size === 'phone' ? page.getByTestId('undo').tap() : page.getByTestId('undo').click());
      await undo.waitFor({ state: 'detached', ...WAIT });

      // Well past the 5 s window: nothing went out, and the bundle still waits.
      await page.clock.runFor(UNDO_WINDOW_MS + 1_500);
      await page.clock.resume();
      await settleRequests(page);
      expect(recorded.responds).toHaveLength(0);
      await expect(pendingIds(suite.world, created.session.id)).resolves.toEqual([pendingId]);
      await page.getByTestId('clarification-overlay').waitFor(WAIT);
      await context.close();
    });
  }

  it('sends a one-tap answer by itself once the undo window ends', async () => {
    const created = await askingTask(suite.world, 'Undo window ends', '/ask');
    const { context, page } = await suite.desktop();
    await page.clock.install();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await pauseClock(page);
    await option(page, 'Hand-written').click();
    await page.clock.runFor(UNDO_WINDOW_MS - 500);
    await settleRequests(page);
    expect(recorded.responds).toHaveLength(0);
    await banner(page, 'undo').waitFor(WAIT);

    await page.clock.runFor(1_000);
    await page.clock.resume();
    await banner(page, 'resolved').waitFor(WAIT);
    expect(recorded.responds).toEqual([
      {
        answers: [{ question_id: 'q1', selected_options: ['hand_written'], custom_text: '' }],
        rejected: false,
      },
    ]);
    await context.close();
  });

  it('sends a one-tap answer at once when its page is hidden: a phone stops a hidden page’s timers', async () => {
    const created = await askingTask(suite.world, 'Undo window hidden', '/ask');
    const { context, page } = await suite.phone();
    await page.clock.install();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await pauseClock(page);
    await option(page, 'Hand-written').tap();
    await banner(page, 'undo').waitFor(WAIT);

    // The person switches to another app: the page is hidden, and its clock stands still.
    await page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);
    await until(
      () => pendingIds(suite.world, created.session.id),
      (ids) => ids.length === 0,
    );
    expect(recorded.responds).toEqual([
      {
        answers: [{ question_id: 'q1', selected_options: ['hand_written'], custom_text: '' }],
        rejected: false,
      },
    ]);
    await context.close();
  });

  it('sends a one-tap answer when its tab is closed within the undo window', async () => {
    const created = await askingTask(suite.world, 'Undo window closed', '/ask');
    const { context, page } = await suite.desktop();
    await page.clock.install();
    await openSession(suite.world, page, created.session.id);
    await pauseClock(page);
    await option(page, 'Hand-written').click();
    await banner(page, 'undo').waitFor(WAIT);
    await page.close({ runBeforeUnload: true });
    await until(
      () => agentReplies(suite.world, created.session.id),
      (replies) => replies.includes('Answer to q1: "Hand-written"'),
    );
    await context.close();
  });

  it('sends typed words with the option picked after them, and names both in the undo window', async () => {
    const created = await askingTask(suite.world, 'Words and option', '/ask');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);
    await page.getByTestId('clarification-custom').fill('keep it small please');
    await option(page, 'Hand-written').click();
    // The words stay where the person typed them, next to the option they go with.
    await expect(page.getByTestId('clarification-custom').inputValue()).resolves.toBe(
      'keep it small please',
    );
    const undo = banner(page, 'undo');
    await undo.waitFor(WAIT);
    await expect(undo.textContent()).resolves.toContain('Hand-written, “keep it small please”');
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);
    expect(recorded.responds).toEqual([
      {
        answers: [
          {
            question_id: 'q1',
            selected_options: ['hand_written'],
            custom_text: 'keep it small please',
          },
        ],
        rejected: false,
      },
    ]);
    await until(
      () => agentReplies(suite.world, created.session.id),
      (replies) =>
        replies.some((reply) =>
          reply.includes('Answer to q1: "Hand-written" and wrote "keep it small please"'),
        ),
    );
    await context.close();
  });

  it('asks to confirm Skip and gives the agent the person’s own reason', async () => {
    const created = await askingTask(suite.world, 'Skip with a reason', '/ask');
    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await openSession(suite.world, page, created.session.id);

    // Skip sits apart from the answers and sends nothing until confirmed.
    await page.getByTestId('clarification-skip').click();
    await page.getByTestId('clarification-skip-cancel').click();
    await page.getByTestId('clarification-skip').click();
    await page.getByTestId('clarification-skip-reason').fill('Ich entscheide das morgen');
    await suite.shoot(page, 'skip-confirm-desktop');
    expect(recorded.responds).toHaveLength(0);
    await page.getByTestId('clarification-skip-confirm-yes').click();
    await banner(page, 'undo').waitFor(WAIT);
    await page.getByTestId('send-now').click();
    await banner(page, 'resolved').waitFor(WAIT);

    expect(recorded.responds).toEqual([
      { rejected: true, reject_reason: 'Ich entscheide das morgen' },
    ]);
    const replies = await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.some((reply) => reply.startsWith('You skipped')),
    );
    expect(replies).toContain('You skipped the questions. Reason: "Ich entscheide das morgen"');
    await context.close();
  });

  it('delivers an answer sent while the server is unreachable once, when it returns', async () => {
    const created = await askingTask(suite.world, 'Offline answer', '/ask');
    const { context, page } = await suite.desktop();
    const outage = await scriptOutage(page, RESPOND);
    await openSession(suite.world, page, created.session.id);
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor(WAIT);

    await outage.begin();
    await page.getByTestId('offline-banner').waitFor(WAIT);
    await option(page, 'No file').click();
    await page.getByTestId('send-now').click();
    const waiting = page.locator(
      '[data-testid="clarification-banner"][data-state="error"][data-waiting="true"]',
    );
    await waiting.waitFor(WAIT);
    await expect(waiting.textContent()).resolves.toContain(
      'will be sent when the connection returns',
    );
    await suite.shoot(page, 'answer-waiting-for-connection');

    outage.end();
    await banner(page, 'resolved').waitFor(WAIT);
    expect(outage.reached).toBe(1);
    const rows = await until(
      () => transcript(suite.world, created.session.id),
      (all) => all.some((row) => row.metadata.status === 'answered'),
    );
    expect(rows.filter((row) => row.metadata.status === 'answered')).toHaveLength(1);
    const replies = await until(
      () => agentReplies(suite.world, created.session.id),
      (all) => all.some((reply) => reply.startsWith('Answer to')),
    );
    expect(replies.filter((reply) => reply.startsWith('Answer to'))).toHaveLength(1);
    await context.close();
  });
  it('reads a detached question’s tool call as waiting for the person, not failed (phone)', async () => {
    const created = await askingTask(suite.world, 'Detached label', '/ask-detach');
    await until(
      () => sessionState(suite.world, created.session.id, created.task.id),
      (state) => state === 'idle',
    );
    const { context, page } = await suite.phone();
    await openSession(suite.world, page, created.session.id);
    const chip = page
      .getByTestId('message')
      .filter({ hasText: 'Asking you a question' })
      .getByTestId('tool-status');
    await expect(chip.getAttribute('data-status')).resolves.toBe('failed');
    await expect(chip.getAttribute('data-label')).resolves.toBe('waiting_detached');
    await expect(chip.textContent()).resolves.toBe('Waiting (the agent will resume)');
    await context.close();
  });
});
