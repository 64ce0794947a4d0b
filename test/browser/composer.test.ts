/**
 * The composer in Debian's Chromium against a real server and the demo
 * agent: text goes exactly as typed; a send whose reply was lost, edited and
 * sent again, tells which text went and keeps the edit; a text the server
 * refuses says why instead of "not confirmed"; a first instruction whose
 * agent failed to start waits in that session's composer; each person's
 * messages are labelled with who wrote them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentPath } from '../../src/agents/profiles.js';
import { MAX_MESSAGE_CHARS } from '../../src/wire/limits.js';
import { de } from '../../web/src/i18n/de.js';
import {
  api,
  launchChromium,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import {
  agentReplies,
  holdFirst,
  MESSAGES,
  until,
  userMessages,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('the composer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-composer-agent-'));
  const script = join(dir, 'agent.sh');
  let world: World;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    writeFileSync(script, 'echo "no API key configured" >&2\nexit 3\n');
    const profiles = { flaky: { command: '/bin/sh', args: [script] } };
    [world, browser] = await Promise.all([
      startWorld({}, { CLARION_AGENT_PROFILES: JSON.stringify(profiles) }),
      launchChromium(),
    ]);
  });

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let admin: BrowserContext | undefined;

  /** The admin's tab (one sign-in link, used once, for the whole suite), or one signed in by `signInUrl`. */
  async function signedIn(signInUrl?: string): Promise<Page> {
    if (signInUrl === undefined && admin) return admin.newPage();
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(signInUrl ?? world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    if (signInUrl === undefined) admin = context;
    return page;
  }

  /** A demo-agent session that answered its first prompt and is idle again. */
  async function idleSession(title: string): Promise<string> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'hello',
    });
    const sessionId = created.session.id;
    await until(
      () => agentReplies(world, sessionId),
      (replies) => replies.length > 0,
    );
    return sessionId;
  }

  async function openComposer(page: Page, sessionId: string) {
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    const input = page.getByTestId('composer-input');
    await input.waitFor(WAIT);
    return input;
  }

  it('sends indentation and trailing lines exactly as typed', async () => {
    const sessionId = await idleSession('Code in a message');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    const code = '    if x:\n        return 1\n';
    await input.fill(code);
    await page.getByTestId('composer-send').click();
    await until(
      () => userMessages(world, sessionId),
      (sent) => sent.length === 2,
    );
    expect((await userMessages(world, sessionId))[1]).toBe(code);

    // Only a text with nothing but whitespace is empty.
    await input.fill('  \n\t ');
    await expect(page.getByTestId('composer-send').isDisabled()).resolves.toBe(true);
  });

  it('keeps what is typed while a message is on its way', async () => {
    const sessionId = await idleSession('Typed on');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    const held = await holdFirst(page, MESSAGES);
    await input.fill('run the migrations');
    await page.getByTestId('composer-send').click();
    await page.getByText('Sending…').waitFor(WAIT);
    await input.press('End');
    await input.pressSequentially('\nthen the seed script');
    held.release();
    await until(
      () => userMessages(world, sessionId),
      (sent) => sent.includes('run the migrations'),
    );
    await expect.poll(() => input.inputValue(), WAIT).toBe('then the seed script');
    // Kept as the draft too: a reload still has it.
    await page.reload();
    await expect.poll(() => input.inputValue(), WAIT).toBe('then the seed script');
  });

  it('keeps the keyboard on Send while a message goes, then hands it to the box', async () => {
    const sessionId = await idleSession('Sent by keyboard');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    const held = await holdFirst(page, MESSAGES);
    await input.fill('tag the release');
    const send = page.getByTestId('composer-send');
    await send.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Sending…').waitFor(WAIT);
    const focused = () =>
      page.evaluate<string | undefined>('document.activeElement?.dataset.testid');
    await expect(focused()).resolves.toBe('composer-send');
    await expect(send.getAttribute('aria-disabled')).resolves.toBe('true');
    await page.keyboard.press('Enter'); // A second press while it goes sends nothing more.
    held.release();
    await until(
      () => userMessages(world, sessionId),
      (sent) => sent.includes('tag the release'),
    );
    await expect.poll(focused, WAIT).toBe('composer-input');
    await expect(send.isDisabled()).resolves.toBe(true);
    const sent = await userMessages(world, sessionId);
    expect(sent.filter((text) => text === 'tag the release')).toHaveLength(1);
  });

  it('keeps an edit sent after a lost reply, and says the earlier text went', async () => {
    const sessionId = await idleSession('Lost reply');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    let lose = true;
    await liveRoute(page, MESSAGES, async (route) => {
      if (route.request().method() !== 'POST' || !lose) return route.continue();
      lose = false;
      await route.fetch(); // The server takes it…
      await route.abort('connectionreset'); // …and its reply never arrives.
    });
    await input.fill('deploy to staging');
    await page.getByTestId('composer-send').click();
    await page.getByText('Not confirmed').waitFor(WAIT);

    await input.fill('deploy to staging, NOT production');
    await page.getByTestId('composer-send').click();
    const earlier = page.getByTestId('composer-earlier');
    await earlier.waitFor(WAIT);
    await expect(earlier.textContent()).resolves.toContain('“deploy to staging”');
    await expect(input.inputValue()).resolves.toBe('deploy to staging, NOT production');
    expect(await userMessages(world, sessionId)).toEqual(['hello', 'deploy to staging']);

    // Sent again on purpose, the edit is a message of its own.
    await page.getByTestId('composer-send').click();
    await until(
      () => userMessages(world, sessionId),
      (sent) => sent.includes('deploy to staging, NOT production'),
    );
    await expect.poll(() => input.inputValue(), WAIT).toBe('');
    expect(await userMessages(world, sessionId)).toEqual([
      'hello',
      'deploy to staging',
      'deploy to staging, NOT production',
    ]);
  });

  it('shows why the server refused a text, not "not confirmed"', async () => {
    const sessionId = await idleSession('Refused text');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    await input.fill('x'.repeat(32_001));
    await page.getByTestId('composer-send').click();
    const invalid = page.getByTestId('composer-invalid');
    await invalid.waitFor(WAIT);
    await expect(invalid.textContent()).resolves.toContain('at most 32000 characters');
    await expect(page.getByText('Not confirmed').count()).resolves.toBe(0);

    await input.fill('\u200b');
    await page.getByTestId('composer-send').click();
    await expect
      .poll(() => invalid.textContent(), WAIT)
      .toContain('must not be only whitespace or invisible characters');
    await expect(input.inputValue()).resolves.toBe('\u200b');
    expect(await userMessages(world, sessionId)).toEqual(['hello']);
  });

  it('says in the page’s language why a text cannot be sent, and sends nothing', async () => {
    const sessionId = await idleSession('Refused text, in German');
    const page = await signedIn();
    const input = await openComposer(page, sessionId);
    await page.getByTestId('language-switch').selectOption('de');
    try {
      const invalid = page.getByTestId('composer-invalid');
      await input.fill('x'.repeat(MAX_MESSAGE_CHARS + 1));
      await page.getByTestId('composer-send').click();
      await expect
        .poll(() => invalid.textContent(), WAIT)
        .toBe(
          de.composer.invalid.replace(
            '{{problem}}',
            de.composer.tooLong.replace('{{max}}', String(MAX_MESSAGE_CHARS)),
          ),
        );
      await input.fill('\u200b');
      await page.getByTestId('composer-send').click();
      await expect
        .poll(() => invalid.textContent(), WAIT)
        .toBe(de.composer.invalid.replace('{{problem}}', de.composer.blank));
      expect(await userMessages(world, sessionId)).toEqual(['hello']);
    } finally {
      await page.getByTestId('language-switch').selectOption('en');
    }
  });

  it('keeps the first instruction in the composer when the agent fails to start', async () => {
    const page = await signedIn();
    await page.goto(`${world.origin}/tasks/new`);
    const instruction = 'Refactor the parser\n  and keep the public API unchanged';
    await page.getByTestId('new-task-title').fill('Agent fails at start');
    await page.getByTestId('new-task-profile').selectOption('flaky');
    await page.getByTestId('new-task-prompt').fill(instruction);
    const created = page.waitForResponse(
      (response) =>
        response.url().endsWith('/api/v1/tasks') && response.request().method() === 'POST',
    );
    await page.getByTestId('new-task-create').click();
    const reply = (await (await created).json()) as CreatedTask & { admission: string };
    expect(reply.admission).toBe('failed');
    await page.waitForURL(`${world.origin}/sessions/${reply.session.id}`);

    const input = page.getByTestId('composer-input');
    await expect.poll(() => input.inputValue(), WAIT).toBe(instruction);
    await page.getByTestId('composer-first-unsent').waitFor(WAIT);

    writeFileSync(script, `exec "${process.execPath}" "${demoAgentPath()}"\n`);
    await page.getByTestId('session-restart').click();
    await page.getByTestId('session-failure').waitFor({ state: 'detached', ...WAIT });
    await page.getByTestId('composer-send').click();
    await until(
      () => agentReplies(world, reply.session.id),
      (replies) => replies.some((text) => text.includes('Refactor the parser')),
    );
    await expect.poll(() => input.inputValue(), WAIT).toBe('');
    await expect(page.getByTestId('composer-first-unsent').count()).resolves.toBe(0);
  });

  it('labels only the reader’s own messages "You" and names the others', async () => {
    const admin = await api<{ user: { id: string; name: string } }>(world, 'GET', '/api/v1/me');
    const bob = await api<{ user: { id: string }; sign_in_url: string }>(
      world,
      'POST',
      '/api/v1/users',
      { name: 'Bob Example' },
    );
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: bob.user.id,
    });
    const sessionId = await idleSession('Whose message');

    const link = new URL(bob.sign_in_url);
    const page = await signedIn(`${world.origin}${link.pathname}${link.search}`);
    const input = await openComposer(page, sessionId);
    const authors = page
      .getByTestId('message')
      .and(page.locator('.message-user'))
      .locator('.message-author');
    await expect.poll(() => authors.allTextContents(), WAIT).toEqual([admin.user.name]);

    await input.fill('my own words');
    await page.getByTestId('composer-send').click();
    await expect.poll(() => authors.allTextContents(), WAIT).toEqual([admin.user.name, 'You']);
  });
});
