/**
 * An answer link in Debian's Chromium: a phone with no session (a fresh
 * context, no cookie) opens the link a notification would carry, sees the
 * task, the question and its choice, and nothing changes until it taps
 * Confirm; then the demo agent gets exactly that answer, recorded as decided
 * on surface `link`. Another phone opening the sibling link sees the winner,
 * a broken link says it is not valid, and an expired one says so. Screenshots go to
 * dist/test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { mintAnswerLinks } from '../../src/turns/index.js';
import type { AnswerLinkChoice } from '../../src/notify/index.js';
import {
  api,
  ARTIFACTS,
  namedOptionsConsent,
  askingTask,
  launchChromium,
  startWorld,
  type World,
} from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };

interface Bundle {
  status: string;
  response: { responded_by: { surface: string; name: string } | null } | null;
}

describe('answer links in the browser', () => {
  let world: World;
  let browser: Browser;

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    await mkdir(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  /** A phone that has never signed in: no cookie, a touch screen. */
  async function phone(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    return { context, page: await context.newPage() };
  }

  async function pendingOf(sessionId: string): Promise<string> {
    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    const found = pending.bundles.find((bundle) => bundle.session_id === sessionId);
    if (!found) throw new Error('nothing pending');
    return found.pending_id;
  }

  async function links(pendingId: string, maxTtlMs?: number): Promise<AnswerLinkChoice[]> {
    const me = await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me');
    return mintAnswerLinks(
      {
        ...world.clarion.turns,
        origin: () => world.origin,
        ...(maxTtlMs === undefined ? {} : { maxTtlMs }),
      },
      { userId: me.user.id, kind: 'question', itemId: pendingId },
    );
  }

  it('a phone without a session opens the link, confirms, and the agent gets that answer', async () => {
    const created = await askingTask(world, 'Configure the app', '/ask');
    const pendingId = await pendingOf(created.session.id);
    const minted = await links(pendingId);
    expect(minted.map((link) => link.label)).toEqual(['Generated', 'Hand-written', 'No file']);
    const handWritten = minted[1]?.url ?? '';
    expect(handWritten.startsWith(`${world.origin}/answer#cla_`)).toBe(true);

    const { context, page } = await phone();
    await page.goto(handWritten);
    const confirm = page.getByTestId('answer-confirm');
    await confirm.waitFor(WAIT);
    await expect(page.getByTestId('answer-task').textContent()).resolves.toBe('Configure the app');
    await expect(page.getByTestId('answer-title').textContent()).resolves.toBe(
      'How should I create the configuration file?',
    );
    await expect(page.getByTestId('answer-choice').textContent()).resolves.toBe('Hand-written');
    await expect(page.getByTestId('answer-as').textContent()).resolves.toBe(
      'You are answering as admin. Not admin? Then this link is not yours: do not confirm.',
    );
    for (const target of [confirm, page.getByTestId('answer-open')]) {
      const box = await target.boundingBox();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    }
    await expect(page.getByTestId('answer-open').getAttribute('href')).resolves.toBe(
      `/sessions/${created.session.id}`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'answer-link-confirm.png') });

    // Opening the page decided nothing, and it signed nobody in.
    const before = await api<Bundle>(world, 'GET', `/api/v1/clarification/${pendingId}`);
    expect(before).toMatchObject({ status: 'pending', response: null });
    expect(await context.cookies()).toEqual([]);

    await confirm.click();
    const result = page.getByTestId('answer-result');
    await result.waitFor(WAIT);
    await expect(result.textContent()).resolves.toBe('Done: you chose “Hand-written” as admin.');
    await expect(result.getAttribute('data-state')).resolves.toBe('answered');
    await page.screenshot({ path: join(ARTIFACTS, 'answer-link-done.png') });

    const after = await api<Bundle>(world, 'GET', `/api/v1/clarification/${pendingId}`);
    expect(after.response?.responded_by).toMatchObject({ surface: 'link', name: 'admin' });
    const deadline = Date.now() + 30_000;
    let reply: string | undefined;
    while (reply === undefined && Date.now() < deadline) {
      const transcript = await api<{ messages: { author: string; content: string }[] }>(
        world,
        'GET',
        `/api/v1/sessions/${created.session.id}/messages?limit=500`,
      );
      reply = transcript.messages.find((message) =>
        message.content.startsWith('Answer to q1:'),
      )?.content;
      if (reply === undefined) await new Promise((done) => setTimeout(done, 100));
    }
    expect(reply).toBe('Answer to q1: "Hand-written"');
    await context.close();

    // Another phone with the sibling link sees the winner and cannot decide again.
    const other = await phone();
    await other.page.goto(minted[0]?.url ?? '');
    const shown = other.page.getByTestId('answer-result');
    await shown.waitFor(WAIT);
    await expect(shown.textContent()).resolves.toBe(
      'Already decided: “Hand-written” by admin (answer link).',
    );
    await expect(other.page.getByTestId('answer-confirm').count()).resolves.toBe(0);
    await expect(other.page.getByTestId('answer-as').count()).resolves.toBe(0);
    await other.page.screenshot({ path: join(ARTIFACTS, 'answer-link-already.png') });

    // A broken link says so, in the page's own words.
    await other.page.goto(`${world.origin}/answer#cla_not-a-real-link`);
    await other.page.reload();
    const invalid = other.page.locator('[data-testid="answer-result"][data-state="invalid"]');
    await invalid.waitFor(WAIT);
    await expect(other.page.locator('h1').textContent()).resolves.toBe('This link is not valid');
    await other.context.close();
  });

  it.each([
    {
      locale: 'de-DE',
      before:
        'Du antwortest als Ada. Wenn du nicht Ada bist, ist dieser Link nicht für dich: Bestätige nicht.',
      after: 'Erledigt: Du hast als Ada „Hand-written“ gewählt.',
    },
    {
      locale: 'ja-JP',
      before:
        'Ada として回答します。あなたが Ada でなければ、このリンクはあなた宛てではありません。確定しないでください。',
      after: '完了: Ada として「Hand-written」を選びました。',
    },
  ])(
    'a link made for someone else names them before Confirm and after, in $locale',
    async ({ locale, before, after }) => {
      // Ada's link, forwarded: whoever opens it decides as Ada, and the page must say so.
      const spaces = await api<{ workspaces: { id: string }[] }>(
        world,
        'GET',
        '/api/v1/workspaces',
      );
      const ada = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
        name: 'Ada',
      });
      await api(world, 'POST', `/api/v1/workspaces/${spaces.workspaces[0]?.id ?? ''}/members`, {
        user_id: ada.user.id,
      });
      const created = await askingTask(world, `Ada's config ${locale}`, '/ask');
      const pendingId = await pendingOf(created.session.id);
      const minted = await mintAnswerLinks(
        { ...world.clarion.turns, origin: () => world.origin },
        { userId: ada.user.id, kind: 'question', itemId: pendingId },
      );
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        locale,
      });
      const page = await context.newPage();
      await page.goto(minted[1]?.url ?? '');
      const confirm = page.getByTestId('answer-confirm');
      await confirm.waitFor(WAIT);
      await expect(page.getByTestId('answer-as').textContent()).resolves.toBe(before);
      await page.screenshot({ path: join(ARTIFACTS, `answer-link-as-${locale}.png`) });

      await confirm.click();
      const result = page.getByTestId('answer-result');
      await result.waitFor(WAIT);
      await expect(result.textContent()).resolves.toBe(after);
      const decided = await api<Bundle>(world, 'GET', `/api/v1/clarification/${pendingId}`);
      expect(decided.response?.responded_by).toMatchObject({ surface: 'link', name: 'Ada' });
      await context.close();
    },
  );

  it('a second link opened in the same tab shows and sends its own choice', async () => {
    const created = await askingTask(world, 'Choose a config', '/ask');
    const pendingId = await pendingOf(created.session.id);
    const [generated, handWritten] = await links(pendingId);
    const { context, page } = await phone();
    await page.goto(generated?.url ?? '');
    await page.getByTestId('answer-confirm').waitFor(WAIT);
    await expect(page.getByTestId('answer-choice').textContent()).resolves.toBe('Generated');

    // The notice's other action: the same page, only the fragment differs.
    await page.goto(handWritten?.url ?? '');
    await expect
      .poll(() => page.getByTestId('answer-choice').textContent(), WAIT)
      .toBe('Hand-written');
    await page.getByTestId('answer-confirm').click();
    const result = page.getByTestId('answer-result');
    await result.waitFor(WAIT);
    await expect(result.textContent()).resolves.toBe('Done: you chose “Hand-written” as admin.');
    const log = await api<{ decisions: { detail: string }[] }>(
      world,
      'GET',
      `/api/v1/decisions?task_id=${created.task.id}`,
    );
    expect(log.decisions.map((entry) => entry.detail)).toEqual(['Hand-written']);
    await context.close();
  });

  it('a consent link leads with what the choice does, whatever the agent called it', async () => {
    const created = await askingTask(world, 'Run a tool', '/ask');
    // The agent names its options: this "always allow" calls itself a Reject.
    const consent = await namedOptionsConsent(world, created, [
      { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
      { option_id: 'always', label: 'Reject (do not run)', kind: 'allow_always' },
    ]);
    const me = await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me');
    const minted = await mintAnswerLinks(
      { ...world.clarion.turns, origin: () => world.origin },
      { userId: me.user.id, kind: 'consent', itemId: consent.id },
    );
    const { context, page } = await phone();
    // "Allow once" says no more than Clarion's own words: no agent's label repeats them.
    await page.goto(minted[0]?.url ?? '');
    const confirm = page.getByTestId('answer-confirm');
    await confirm.waitFor(WAIT);
    await expect(page.getByTestId('answer-choice').textContent()).resolves.toBe('Allow once');
    await expect(page.getByTestId('answer-agent-label').count()).resolves.toBe(0);

    await page.goto(minted[1]?.url ?? '');
    await expect
      .poll(() => page.getByTestId('answer-choice').textContent(), WAIT)
      .toBe('Always allow');
    await expect(page.getByTestId('answer-agent-label').textContent()).resolves.toBe(
      'The agent’s label for it: Reject (do not run)',
    );
    // The rule covers this command of this profile only, where this task runs, and the page says so.
    await expect(page.getByTestId('answer-sets-rule').textContent()).resolves.toBe(
      'This sets an “Always allow” rule for the agent profile “demo” in this task’s workspace and ' +
        'folder: from now on exactly this command runs there without asking you: Run the liar ' +
        'tool. Any other command, workspace or folder still asks. You can revoke it in Settings.',
    );
    await expect(confirm.textContent()).resolves.toBe('Confirm: Always allow');
    await page.screenshot({ path: join(ARTIFACTS, 'answer-link-consent-kind.png') });

    await confirm.click();
    const result = page.getByTestId('answer-result');
    await result.waitFor(WAIT);
    await expect(result.textContent()).resolves.toBe('Done: you chose “Always allow” as admin.');
    await expect(page.getByTestId('answer-agent-label').textContent()).resolves.toBe(
      'The agent’s label for it: Reject (do not run)',
    );
    await expect(consent.outcome).resolves.toMatchObject({ option_id: 'always' });
    await context.close();
  });

  it('an expired link says so and offers no Confirm', async () => {
    const created = await askingTask(world, 'Pick a runner', '/ask');
    const pendingId = await pendingOf(created.session.id);
    const [first] = await links(pendingId, 1);
    await new Promise((done) => setTimeout(done, 20));
    const { context, page } = await phone();
    await page.goto(first?.url ?? '');
    const result = page.locator('[data-testid="answer-result"][data-state="expired"]');
    await result.waitFor(WAIT);
    await expect(result.textContent()).resolves.toBe(
      'This link has expired: the agent is no longer waiting for this answer.',
    );
    await expect(page.getByTestId('answer-confirm').count()).resolves.toBe(0);
    await expect(page.getByTestId('answer-as').count()).resolves.toBe(0);
    const still = await api<Bundle>(world, 'GET', `/api/v1/clarification/${pendingId}`);
    expect(still).toMatchObject({ status: 'pending', response: null });
    await context.close();
  });

  it('keeps the focus of a Confirm pressed from the keyboard on the page, ending on its result', async () => {
    const created = await askingTask(world, 'Confirm from the keyboard', '/ask');
    const minted = await links(await pendingOf(created.session.id));
    const { context, page } = await phone();
    await page.goto(minted[0]?.url ?? '');
    const focused = () =>
      page.evaluate("document.activeElement?.getAttribute('data-testid') ?? 'body'");
    // The answer held on its way: Confirm says it is sending and keeps the focus meanwhile.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await liveRoute(page, '**/api/v1/answer-links/use', async (route) => {
      await released;
      await route.continue();
    });
    await page.getByTestId('answer-confirm').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('answer-confirm').and(page.getByText('Sending')).waitFor(WAIT);
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done)))');
    await expect(focused()).resolves.toBe('answer-confirm');
    release();
    await page.getByTestId('answer-result').waitFor(WAIT);
    await expect.poll(focused, WAIT).toBe('answer-result');
    await context.close();
  });
});
