/**
 * A permission request whose agent died, in Chromium against the real server
 * with the demo agent SIGKILLed while it waits: the card reads ended (no
 * choices left) as soon as the page hears the request ended, worded as the
 * agent's exit in the reader's language, and the transcript's note naming it
 * is translated; a tab that never heard of the end and answers anyway is
 * told, in words, that the agent stopped, not that someone answered first.
 * The tool call the agent was in when it died reads stopped, not failed.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { UserInputView } from '../../src/wire/index.js';
import { childrenOf } from '../agents/supervisor-support.js';
import {
  api,
  EVENTS_SOCKET,
  signedInPage,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { until, useSuite, WAIT } from './support/clarification-pages.js';

/** A session whose demo agent waits on `prompt`'s request, and the agent's process to kill. */
async function waitingRequest(world: World, title: string, prompt = '/permission') {
  const running = new Set(childrenOf(process.pid));
  const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt });
  const sessionId = created.session.id;
  const request = await until(
    async () =>
      (await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs')).requests.find(
        (view) => view.session_id === sessionId,
      ),
    (found) => found !== undefined,
  );
  const agentPid = childrenOf(process.pid).find((pid) => !running.has(pid));
  if (!request || agentPid === undefined) throw new Error('no request or no agent');
  return { sessionId, request, kill: () => process.kill(agentPid, 'SIGKILL') };
}

function card(page: Page, requestId: string) {
  return page.locator(`[data-testid="user-input-card"][data-request-id="${requestId}"]`);
}

describe('a permission request whose agent died', () => {
  const suite = useSuite();

  it('reads ended in the reader’s language, with the transcript’s note translated', async () => {
    const { world } = suite;
    const { sessionId, request, kill } = await waitingRequest(world, 'Agent killed');
    const page = await signedInPage(world, suite.browser, undefined, { locale: 'de-DE' });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const consent = card(page, request.id);
    await consent.locator('[data-option-id="allow-once"]').waitFor(WAIT);

    kill();
    await consent.and(page.locator('[data-outcome="agent_exited"]')).waitFor(WAIT);
    await expect(consent.locator('[data-option-id]').count()).resolves.toBe(0);
    await expect(consent.getByTestId('user-input-outcome').textContent()).resolves.toContain(
      'Unbeantwortet beendet: Der Agent wurde beendet, bevor jemand geantwortet hat.',
    );

    const note = page.getByTestId('user-input-note');
    await note.waitFor(WAIT);
    await expect(note.getAttribute('data-worded')).resolves.toBe('translated');
    await expect(note.textContent()).resolves.toContain(
      `Unbeantwortet beendet – Berechtigungsanfrage des Agenten „${request.title}“: Der Agent wurde beendet.`,
    );
    await suite.shoot(page, 'agent-exited-de');
    await page.context().close();
  }, 120_000);

  it('tells a tab that did not hear of the end that the agent stopped', async () => {
    const { world } = suite;
    const { sessionId, request, kill } = await waitingRequest(world, 'Agent killed unheard');
    const page = await signedInPage(world, suite.browser, undefined, { locale: 'ja-JP' });
    // This tab never hears that the request ended: it still offers the choices.
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      const server = socket.connectToServer();
      socket.onMessage((message) => {
        server.send(message);
      });
      server.onMessage((message) => {
        if (typeof message === 'string' && message.includes('"user_input.settled"')) return;
        socket.send(message);
      });
    });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const consent = card(page, request.id);
    const allow = consent.locator('[data-option-id="allow-once"]');
    await allow.waitFor(WAIT);

    kill();
    await until(
      async () =>
        (
          await api<{ messages: { type: string }[] }>(
            world,
            'GET',
            `/api/v1/sessions/${sessionId}/messages?limit=500`,
          )
        ).messages.some((message) => message.type === 'user_input_ended'),
      (ended) => ended,
    );
    await allow.click();
    const status = consent.getByTestId('user-input-status');
    // It reads "sending" until the server's refusal comes back.
    await expect
      .poll(() => status.textContent(), WAIT)
      .toBe(
        '依頼したエージェントが停止したため、回答されないまま終了しました。何も決定されていません。',
      );
    await expect(consent.locator('[data-option-id]').count()).resolves.toBe(0);
    await page.context().close();
  }, 120_000);

  it('reads the tool call its agent died in as stopped, live', async () => {
    const { world } = suite;
    const { sessionId, kill } = await waitingRequest(world, 'Agent killed mid-call', '/action');
    const page = await signedInPage(world, suite.browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const chip = page
      .getByTestId('message')
      .filter({ hasText: 'Asking you to connect the staging database' })
      .getByTestId('tool-status');
    await chip.and(page.locator('[data-status="in_progress"]')).waitFor(WAIT);

    kill();
    await chip.and(page.locator('[data-status="stopped"]')).waitFor(WAIT);
    await expect(chip.getAttribute('data-label')).resolves.toBe('stopped');
    await expect(chip.textContent()).resolves.toBe('Stopped');
    await page.context().close();
  }, 120_000);
});
