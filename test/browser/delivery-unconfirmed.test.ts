/**
 * The unconfirmed-delivery note in Chromium against the real server and demo
 * agent. A live answer is handed off; the store is then put back in the
 * state a SIGKILL before the turn's end leaves (turn open, the ask's tool
 * call running; the kill-point suite proves that state and the restart on a
 * real process) and the real start-up recovery runs. The page shows the note
 * with the answer, its translated words, and "send again" admits the answer
 * as one ordinary message, however often it is clicked.
 */
import { describe, expect, it } from 'vitest';
import { recoverClarifications } from '../../src/clarification/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { reviseMessage } from '../../src/store/index.js';
import { api, askingTask } from './support/harness.js';
import {
  agentReplies,
  holdFirst,
  MESSAGES,
  recordRequests,
  sessionState,
  transcript,
  until,
  userMessages,
  useSuite,
  WAIT,
} from './support/clarification-pages.js';

const RESEND_TEXT = 'How should I create the configuration file?\nGenerated; from main';

describe('an answer a restart left unconfirmed', () => {
  const suite = useSuite();

  it('is noted in the transcript and sent again once as an ordinary message', async () => {
    const { world } = suite;
    const created = await askingTask(world, 'Unconfirmed delivery', '/ask');
    const sessionId = created.session.id;
    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    const pendingId = pending.bundles.find((b) => b.session_id === sessionId)?.pending_id ?? '';
    await api(world, 'POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'], custom_text: 'from main' }],
    });
    await until(
      () => sessionState(world, sessionId, created.task.id),
      (state) => state === 'idle',
    );

    // What a SIGKILL between the hand-off and the turn's end leaves behind.
    const { store } = world.clarion;
    const rows = await transcript(world, sessionId);
    const asked = rows.find((row) => row.type === 'clarification_request');
    const call = rows.find((row) => row.type === 'tool_call');
    if (!asked || !call) throw new Error('no question or tool call in the transcript');
    await store.db
      .updateTable('task_session_turns')
      .set({ completed_at: null })
      .where('id', '=', asked.turn_id)
      .execute();
    await reviseMessage(store, call.id, {
      content: call.content,
      metadata: { ...call.metadata, status: 'in_progress' },
    });
    await recoverClarifications({ store, sessions: world.clarion.turns.sessions }, silentLogger);

    const { context, page } = await suite.desktop();
    const recorded = recordRequests(page);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const note = page.getByTestId('delivery-unconfirmed');
    await note.waitFor(WAIT);
    await expect(note.textContent()).resolves.toContain('the agent may not have received it');
    await expect(page.getByTestId('delivery-unconfirmed-text').textContent()).resolves.toBe(
      RESEND_TEXT,
    );
    // The ask's tool call is closed, not left running: cut off, not failed.
    const chip = page.getByTestId('tool-status');
    await expect(chip.getAttribute('data-status')).resolves.toBe('stopped');
    await expect(chip.textContent()).resolves.toBe('Stopped');

    await suite.shoot(page, 'delivery-unconfirmed-desktop');
    const resend = page.getByTestId('delivery-unconfirmed-resend');
    await expect(resend.textContent()).resolves.toBe('Send the answer again as a new message');
    // By keyboard, the message held on its way: the focus stays on the button while it sends
    // and after.
    const held = await holdFirst(page, MESSAGES);
    await resend.focus();
    await page.keyboard.press('Enter');
    await held.arrived;
    await resend.and(page.locator('[aria-busy="true"]')).waitFor(WAIT);
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done)))');
    const focused = () => page.evaluate("document.activeElement?.getAttribute('data-testid')");
    await expect(focused()).resolves.toBe('delivery-unconfirmed-resend');
    held.release();
    const status = page.getByTestId('delivery-unconfirmed-status');
    await status.waitFor(WAIT);
    await expect(focused()).resolves.toBe('delivery-unconfirmed-resend');
    await expect(status.getAttribute('data-state')).resolves.toBe('sent');
    await expect(status.textContent()).resolves.toBe(
      'Your answer was sent again as a new message.',
    );
    await until(
      () => agentReplies(world, sessionId),
      (replies) => replies.includes(`You said: ${RESEND_TEXT}`),
    );

    // A second click reuses the note's admission key: nothing new is admitted.
    await resend.click();
    await until(
      () => Promise.resolve(recorded.messages.length),
      (count) => count === 2,
    );
    await until(
      () => resend.isEnabled(),
      (enabled) => enabled,
    );
    await expect(status.getAttribute('data-state')).resolves.toBe('sent');
    expect(recorded.messages).toEqual([
      { text: RESEND_TEXT, admission_key: `resend:${pendingId}` },
      { text: RESEND_TEXT, admission_key: `resend:${pendingId}` },
    ]);
    expect(await userMessages(world, sessionId)).toEqual(['/ask', RESEND_TEXT]);
    await context.close();
  });
});
