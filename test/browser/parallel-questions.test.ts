/**
 * An external agent that asks two questions at once (Claude Code with two
 * tool calls in flight, over MCP with its person's agent token) waits on
 * both, and the server lists both as active. The web app agrees: the inbox
 * lists both, the session page shows the longest waiting in the overlay and
 * the other as waiting (never "the conversation moved on", never only a new
 * message, which an external session refuses), and "Answer now" answers it
 * in the overlay, reaching the call that asked it, with the keyboard's focus
 * moved onto the question it shows.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { option, useSuite, WAIT } from './support/clarification-pages.js';

interface Pending {
  bundles: { pending_id: string; session_id: string; questions: { prompt: string }[] }[];
}

function question(prompt: string, labels: [string, string]) {
  return {
    context: 'Release prep',
    questions: [
      {
        title: 'Release',
        prompt,
        options: labels.map((label) => ({ label, description: `Pick ${label}` })),
      },
    ],
  };
}

describe('questions an external agent asks in parallel', () => {
  const suite = useSuite();
  const clients: Client[] = [];

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
  });

  async function pendingOf(prompt: string) {
    let found: Pending['bundles'][number] | undefined;
    await expect
      .poll(async () => {
        const pending = await api<Pending>(suite.world, 'GET', '/api/v1/pending');
        found = pending.bundles.find((bundle) => bundle.questions[0]?.prompt === prompt);
        return found !== undefined;
      }, WAIT)
      .toBe(true);
    if (!found) throw new Error(`${prompt} is not pending`);
    return found;
  }

  /** An external agent over MCP with its person's agent token: `ask` calls `ask_user_question`. */
  async function connectAsker(name: string) {
    const { world } = suite;
    const { secret } = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name,
      kind: 'agent',
    });
    const client = new Client({ name: 'Claude Code', version: '2.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const ask = (args: ReturnType<typeof question>) =>
      client.callTool({ name: 'ask_user_question', arguments: args }, undefined, {
        timeout: 120_000,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      });
    return ask;
  }

  it('lists both, and answers the later one from the session page while the first waits', async () => {
    const { world } = suite;
    const ask = await connectAsker('parallel asker');

    const firstCall = ask(question('Which version?', ['2.0.0', '1.5.0']));
    const first = await pendingOf('Which version?');
    const secondCall = ask(question('Which branch?', ['main', 'release']));
    // Awaited below; a failed step closes the client, and its rejections belong to that step.
    for (const call of [firstCall, secondCall]) call.catch(() => undefined);
    const second = await pendingOf('Which branch?');
    expect(second.session_id).toBe(first.session_id);

    const { context, page } = await suite.desktop();
    await page.goto(`${world.origin}/`);
    const items = page.getByTestId('inbox-item');
    await items.and(page.locator(`[data-pending-id="${second.pending_id}"]`)).waitFor(WAIT);
    await items.and(page.locator(`[data-pending-id="${first.pending_id}"]`)).waitFor(WAIT);

    await page.goto(`${world.origin}/sessions/${first.session_id}`);
    const overlay = page.getByTestId('clarification-overlay');
    await overlay.and(page.locator(`[data-pending-id="${first.pending_id}"]`)).waitFor(WAIT);
    const waiting = page
      .getByTestId('question-row')
      .filter({ hasText: 'Which branch?' })
      .and(page.locator('[data-status="pending"]'));
    await waiting.getByText('Waiting for an answer').waitFor(WAIT);
    await expect(page.getByTestId('transcript').innerText()).resolves.not.toContain('moved on');
    await expect(waiting.getByTestId('late-answer-open').count()).resolves.toBe(0);

    // By keyboard: "Answer now" takes focus to the question it shows, so a screen reader
    // reads out the question (the option's group is named by it) and the focus is not lost.
    await waiting.getByRole('button', { name: 'Answer now' }).focus();
    await page.keyboard.press('Enter');
    await overlay.and(page.locator(`[data-pending-id="${second.pending_id}"]`)).waitFor(WAIT);
    // The focused option, the question its group is named by, and the bundle it answers.
    const focused = () =>
      page.evaluate<string>(
        `(() => {
          const option = document.activeElement;
          const group = option?.closest('[role="radiogroup"]');
          return [
            option?.getAttribute('role'),
            option?.querySelector('.option-label')?.textContent,
            document.getElementById(group?.getAttribute('aria-labelledby') ?? '')?.textContent,
            option?.closest('[data-testid="clarification-overlay"]')?.getAttribute('data-pending-id'),
          ].join(' | ');
        })()`,
      );
    await expect.poll(focused, WAIT).toBe(`radio | main | Which branch? | ${second.pending_id}`);
    await option(page, 'release').click();
    await page.getByTestId('send-now').click();
    expect(JSON.stringify((await secondCall).structuredContent)).toContain('"label":"release"');

    // The first question is still the agent's, and still answerable here.
    await overlay.and(page.locator(`[data-pending-id="${first.pending_id}"]`)).waitFor(WAIT);
    await option(page, '1.5.0').click();
    await page.getByTestId('send-now').click();
    expect(JSON.stringify((await firstCall).structuredContent)).toContain('"label":"1.5.0"');
    await context.close();
  });

  it('opens the question a person picked in the inbox, not the longest waiting', async () => {
    const ask = await connectAsker('parallel asker, inbox');
    const firstCall = ask(question('Which registry?', ['npm', 'GitHub']));
    const first = await pendingOf('Which registry?');
    const secondCall = ask(question('Which tag?', ['latest', 'next']));
    for (const call of [firstCall, secondCall]) call.catch(() => undefined);
    const second = await pendingOf('Which tag?');
    expect(second.session_id).toBe(first.session_id);

    const { context, page } = await suite.desktop();
    await page.goto(`${suite.world.origin}/`);
    const row = page.locator(`[data-testid="inbox-item"][data-pending-id="${second.pending_id}"]`);
    await row.locator('.inbox-link').click();
    const overlay = page.getByTestId('clarification-overlay');
    await overlay.waitFor(WAIT);
    await expect(overlay.getAttribute('data-pending-id')).resolves.toBe(second.pending_id);

    // With the keyboard too: J to the row, Enter opens it.
    await page.goto(`${suite.world.origin}/`);
    await row.waitFor(WAIT);
    await row.focus();
    await page.keyboard.press('Enter');
    await overlay.waitFor(WAIT);
    await expect(overlay.getAttribute('data-pending-id')).resolves.toBe(second.pending_id);
    await context.close();
  });
});
