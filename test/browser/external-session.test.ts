/**
 * An external agent's session (it came in over MCP, Clarion did not start
 * it) refuses every message and can never be resumed. Its page offers no
 * composer but says why, and once the agent's call has ended it says the
 * answer is kept until the agent collects it with `wait_for_answer`, not
 * that the answer "will resume it" or was "delivered".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { api, signedInPage } from './support/harness.js';
import { banner, option, useSuite, WAIT } from './support/clarification-pages.js';

const PROMPT = 'Which database should the service use?';

describe('an external agent’s session in Chromium', () => {
  const suite = useSuite();

  it('offers no composer, and says an answer after the call ended is kept for the agent', async () => {
    const { world, browser } = suite;
    const minted = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'outside agent',
      kind: 'agent',
    });
    const client = new Client({ name: 'Outside agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${minted.secret}` } },
      }),
    );
    const call = client
      .callTool(
        {
          name: 'ask_user_question',
          arguments: {
            questions: [
              {
                prompt: PROMPT,
                options: [
                  { label: 'PostgreSQL', description: 'a server' },
                  { label: 'SQLite', description: 'a file' },
                ],
              },
            ],
          },
        },
        undefined,
        { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined },
      )
      .catch(() => undefined);
    let asked: { pending_id: string; session_id: string } | undefined;
    await expect
      .poll(async () => {
        const pending = await api<{
          bundles: { pending_id: string; session_id: string; questions: { prompt: string }[] }[];
        }>(world, 'GET', '/api/v1/pending');
        asked = pending.bundles.find((bundle) => bundle.questions[0]?.prompt === PROMPT);
        return asked;
      }, WAIT)
      .toBeDefined();
    const pendingId = asked?.pending_id ?? '';
    const sessionId = asked?.session_id ?? '';

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(sessionId)}`);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await page.getByTestId('composer-external').waitFor(WAIT);
    await expect(page.getByTestId('composer-input').count()).resolves.toBe(0);

    // The agent's client goes away (Claude Code closed): its call ends, the question stays.
    await client.close();
    await call;
    await expect
      .poll(
        async () =>
          (await api<{ detached: boolean }>(world, 'GET', `/api/v1/clarification/${pendingId}`))
            .detached,
        WAIT,
      )
      .toBe(true);
    // The question (pending list) can land before the session's read says where its agent
    // runs: held here, so the page must then promise neither a resume nor a wait.
    let releaseSessions = () => {};
    const sessionsHeld = new Promise<void>((resolve) => {
      releaseSessions = resolve;
    });
    await page.route('**/api/v1/tasks/*/sessions', async (route) => {
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
    await page.context().close();
  });
});
