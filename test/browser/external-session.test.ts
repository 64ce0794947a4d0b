/**
 * An external agent's session (it came in over MCP, Clarion did not start
 * it) refuses every message and can never be resumed. Its page offers no
 * composer but says why, and once the agent's call has ended it says the
 * answer is kept until the agent collects it with `wait_for_answer`, not
 * that the answer "will resume it" or was "delivered". Once the agent comes
 * back and waits for its answer, the open page shows it waiting again, and
 * the person's Cancel there reaches that waiting call at once.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { api, signedInPage } from './support/harness.js';
import { banner, option, useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const PROMPT = 'Which database should the service use?';

/** A client of the agent token `secret`, as the agent's MCP client names itself. */
async function agentClient(url: string, secret: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

/** A long call as an agent that keeps it alive with progress makes it. */
const KEPT_ALIVE = { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined };

describe('an external agent’s session in Chromium', () => {
  const suite = useSuite();

  /**
   * `client` asks one question with two options, its call kept alive; once
   * the question is listed, its IDs and the call (which settles, never
   * throws, when the client goes away).
   */
  async function ask(client: Client, prompt: string, labels: readonly [string, string]) {
    const call = client
      .callTool(
        {
          name: 'ask_user_question',
          arguments: {
            questions: [
              {
                prompt,
                options: labels.map((label) => ({ label, description: `the ${label} option` })),
              },
            ],
          },
        },
        undefined,
        KEPT_ALIVE,
      )
      .catch(() => undefined);
    let asked: { pending_id: string; session_id: string } | undefined;
    await expect
      .poll(async () => {
        const pending = await api<{
          bundles: { pending_id: string; session_id: string; questions: { prompt: string }[] }[];
        }>(suite.world, 'GET', '/api/v1/pending');
        asked = pending.bundles.find((bundle) => bundle.questions[0]?.prompt === prompt);
        return asked;
      }, WAIT)
      .toBeDefined();
    return { call, pendingId: asked?.pending_id ?? '', sessionId: asked?.session_id ?? '' };
  }

  /** Once its call has ended, the question reads as the agent having moved on. */
  async function readsDetached(pendingId: string): Promise<void> {
    await expect
      .poll(
        async () =>
          (
            await api<{ detached: boolean }>(
              suite.world,
              'GET',
              `/api/v1/clarification/${pendingId}`,
            )
          ).detached,
        WAIT,
      )
      .toBe(true);
  }

  it('offers no composer, and says an answer after the call ended is kept for the agent', async () => {
    const { world, browser } = suite;
    const minted = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'outside agent',
      kind: 'agent',
    });
    const client = await agentClient(world.clarion.url, minted.secret, 'Outside agent');
    const { call, pendingId, sessionId } = await ask(client, PROMPT, ['PostgreSQL', 'SQLite']);

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(sessionId)}`);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await page.getByTestId('composer-external').waitFor(WAIT);
    await expect(page.getByTestId('composer-input').count()).resolves.toBe(0);

    // The agent's client goes away (Claude Code closed): its call ends, the question stays.
    await client.close();
    await call;
    await readsDetached(pendingId);
    // The question (pending list) can land before the session's read says where its agent
    // runs: held here, so the page must then promise neither a resume nor a wait.
    let releaseSessions = () => {};
    const sessionsHeld = new Promise<void>((resolve) => {
      releaseSessions = resolve;
    });
    await liveRoute(page, '**/api/v1/tasks/*/sessions', async (route) => {
      await sessionsHeld;
      await route.continue();
    });
    await page.reload();
    const detached = banner(page, 'detached');
    await detached.waitFor(WAIT);
    await expect(detached.textContent()).resolves.toBe('Agent moved on');
    expect(await page.locator('main').textContent()).not.toMatch(/resume it|new message/u);
    releaseSessions();
    await expect
      .poll(() => detached.textContent(), WAIT)
      .toContain('kept until the agent collects it (wait_for_answer)');
    await page.unroute('**/api/v1/tasks/*/sessions');
    const overlay = await page.getByTestId('clarification-overlay').textContent();
    expect(overlay).not.toContain('new message');
    expect(await page.locator('main').textContent()).not.toMatch(/resume it/u);

    await option(page, 'SQLite').click();
    await page.getByTestId('send-now').click();
    const resolved = banner(page, 'resolved');
    await resolved.waitFor(WAIT);
    await expect(resolved.textContent()).resolves.toContain('Answer kept.');
    await expect(resolved.textContent()).resolves.not.toContain('delivered');
    // Answered, it is a transcript row; a new message could never reach this agent, so the row
    // offers none (the server would refuse it, 409).
    const row = page.getByTestId('question-row').filter({ hasText: PROMPT });
    await row.waitFor(WAIT);
    await expect(row.getByTestId('late-answer-open').count()).resolves.toBe(0);
    await page.context().close();
  });

  it('shows the agent waiting again once it waits for its answer, and Cancel reaches that call', async () => {
    const { world, browser } = suite;
    const prompt = 'Which queue should the worker read?';
    const name = 'Returning agent';
    const minted = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'returning agent',
      kind: 'agent',
    });
    const asker = await agentClient(world.clarion.url, minted.secret, name);
    const { call, pendingId, sessionId } = await ask(asker, prompt, ['Redis', 'Kafka']);
    // Its client goes away: the call ends and the question reads as the agent having moved on.
    await asker.close();
    await call;
    await readsDetached(pendingId);

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(sessionId)}`);
    const overlay = page.getByTestId('clarification-overlay');
    const detached = banner(page, 'detached');
    await detached.waitFor(WAIT);
    await expect(overlay.getByTestId('question-cancel').count()).resolves.toBe(0);

    // The agent is back (the same client name, a new connection) and waits for its answer.
    const back = await agentClient(world.clarion.url, minted.secret, name);
    const waiting = back.callTool(
      { name: 'wait_for_answer', arguments: { pending_id: pendingId, timeout_seconds: 120 } },
      undefined,
      KEPT_ALIVE,
    );
    // No reload: the page hears it.
    await detached.waitFor({ state: 'detached', ...WAIT });
    await overlay.getByTestId('question-cancel').click();
    await overlay.getByTestId('question-cancel-yes').click();
    const cancelledAt = Date.now();
    await banner(page, 'cancelled').waitFor(WAIT);
    const result = await waiting;
    expect(Date.now() - cancelledAt).toBeLessThan(WAIT.timeout / 3);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('closed before anyone answered it');
    await back.close();
    await page.context().close();
  });
});
