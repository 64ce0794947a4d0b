/**
 * The real Claude Code's question answered in the web app (issue 13): the
 * built `clarion serve` runs as a child process with the pinned Claude ACP
 * adapter as its agent profile, offline against the Messages API stand-in.
 * The model calls `AskUserQuestion`; Chromium opens the session, the overlay
 * shows the header, the options with their descriptions and the multi-select
 * step, the person answers with a click and custom text, and Claude Code's
 * final message in the transcript quotes the chosen label and the text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { askThenQuote, QUOTE_PREFIX } from '../agents/claude-ask-script.js';
import { claudeProfile } from '../agents/claude-profile.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import {
  startMessagesApiStandIn,
  type MessagesApiStandIn,
} from '../support/messages-api-stand-in.js';
import { option, WAIT } from './support/clarification-pages.js';
import { launchChromium } from './support/harness.js';

const ADMIN_TOKEN = 'claude-code-overlay-admin-token-0123456789';
/** A whole Claude Code run takes about 4 s alone; the machine is shared. */
const CLAUDE_WAIT = { timeout: 90_000 };
const SIGN_IN_LINE = /Sign in \(one-time link\): (\S+)/;

describe('the real Claude Code asks in the web app', () => {
  const dirs: string[] = [];
  let standIn: MessagesApiStandIn | undefined;
  let server: Serving | undefined;
  let browser: Browser | undefined;

  afterEach(async () => {
    await browser?.close();
    await server?.stop();
    await standIn?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('shows AskUserQuestion in the overlay, and the final message quotes the click and the custom text', async () => {
    const home = mkdtempSync(join(tmpdir(), 'clarion-claude-home-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'clarion-claude-overlay-'));
    dirs.push(home, dataDir);
    [standIn, browser] = await Promise.all([
      startMessagesApiStandIn(askThenQuote),
      launchChromium(),
    ]);
    server = await startServing({
      CLARION_DATA_DIR: dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_PROFILES: JSON.stringify({ claude: claudeProfile(home, standIn.url) }),
    });
    const serving = server;
    // Printed right after the serving line, possibly in a later chunk.
    await expect.poll(() => SIGN_IN_LINE.test(serving.output().stdout), WAIT).toBe(true);
    const signIn = SIGN_IN_LINE.exec(serving.output().stdout)?.[1] ?? '';

    const api = clarionApi(server.url, ADMIN_TOKEN);
    const created = await api('POST', '/api/v1/tasks', {
      title: 'Pick a database',
      agent_profile: 'claude',
      prompt: 'Ask me which database to use.',
    });
    expect(created.status).toBe(201);
    const sessionId = (created.json.session as { id: string }).id;

    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(WAIT.timeout);
    const page = await context.newPage();
    await page.goto(signIn);
    await page.waitForURL(`${server.url}/`);
    await page.goto(`${server.url}/sessions/${sessionId}`);
    const overlay = page.getByTestId('clarification-overlay');
    await overlay.waitFor(CLAUDE_WAIT);

    const question = page.getByTestId('clarification-question');
    await expect(question.locator('.question-title').textContent()).resolves.toBe('Database');
    await expect(question.locator('.question-prompt').textContent()).resolves.toBe(
      'Which database should the service use?',
    );
    await expect(option(page, 'PostgreSQL').textContent()).resolves.toContain(
      'One server, strong SQL',
    );
    await expect(option(page, 'SQLite').getAttribute('role')).resolves.toBe('radio');
    await option(page, 'SQLite').click(); // a single choice advances to the next step

    await question.locator('.question-title', { hasText: 'Checks' }).waitFor();
    await expect(option(page, 'Tests').getAttribute('role')).resolves.toBe('checkbox');
    await expect(option(page, 'Lint').textContent()).resolves.toContain('eslint and prettier');
    await option(page, 'Tests').click();
    await page.getByTestId('clarification-custom').fill('types as well');
    await expect(option(page, 'Tests').getAttribute('aria-checked')).resolves.toBe('true');
    await page.getByTestId('clarification-answered').getByText('2 of 2 answered').waitFor();
    await page.getByTestId('clarification-submit').click();

    const final = page.getByTestId('transcript').getByText(QUOTE_PREFIX).first();
    await final.waitFor(CLAUDE_WAIT);
    const quoted = (await final.textContent()) ?? '';
    expect(quoted).toContain('"Which database should the service use?"="SQLite"');
    expect(quoted).toContain('Tests, types as well');
    await overlay.waitFor({ state: 'detached', ...WAIT });
    await context.close();
  }, 180_000);
});
