/**
 * Issue 15 in Chromium against a real server and the demo agent: the empty
 * inbox's first run (the demo task made from the UI and answered there, and
 * the MCP command with a fresh token), the New task page (a bad working
 * directory shows the server's reason beside the field), and an "Always
 * allow" rule revoked in Settings making the next permission request ask.
 * Desktop and phone; screenshots go to dist/test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserInputView } from '../../src/user-input/index.js';
import type { ConsentRuleView } from '../../src/wire/index.js';
import {
  adminSignedInState,
  api,
  ARTIFACTS,
  EVENTS_SOCKET,
  launchChromium,
  signedInPage,
  startWorld,
  type StorageState,
  type World,
} from './support/harness.js';
import { UNDO_WINDOW_MS } from '../../web/src/model/respond.js';
import {
  agentReplies,
  agentSaid,
  banner,
  option,
  overflowsHorizontally,
  smallTargets,
  until,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

/**
 * Whether the page is wider than the phone. On a mobile viewport an overflow
 * widens the layout viewport itself, so `innerWidth` cannot be the yardstick.
 */
async function widerThanPhone(page: Page): Promise<boolean> {
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  return width > PHONE.viewport.width;
}

describe('first run, new task and "Always allow" rules in Chromium', () => {
  let world: World;
  let browser: Browser;
  let signedIn: StorageState;

  async function open(size: 'desktop' | 'phone'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      storageState: signedIn,
      locale: 'en-US',
      ...(size === 'phone' ? PHONE : { viewport: { width: 1280, height: 900 } }),
    });
    context.setDefaultTimeout(30_000);
    return { context, page: await context.newPage() };
  }

  async function live(page: Page): Promise<void> {
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
  }

  const shoot = (page: Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  async function waitingConsent(sessionId: string): Promise<UserInputView> {
    const found = await until(
      () => api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs'),
      (list) => list.requests.some((request) => request.session_id === sessionId),
    );
    const request = found.requests.find((item) => item.session_id === sessionId);
    if (!request) throw new Error('no consent request');
    return request;
  }

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
    signedIn = await adminSignedInState(world, browser);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  it('the empty inbox starts the demo task, which asks; answering it in the UI reaches the agent', async () => {
    const { context, page } = await open('desktop');
    // The answer is held for the undo window: the test moves the page's clock through it.
    await page.clock.install();
    await page.goto(`${world.origin}/`);
    await live(page);
    const firstRun = page.getByTestId('first-run');
    await firstRun.waitFor(WAIT);
    await shoot(page, 'first-run-desktop');
    await page.getByTestId('first-run-demo').click();
    await page.waitForURL(/\/sessions\/[^/]+$/, WAIT);
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await option(page, 'Generated').click();
    await banner(page, 'undo').waitFor(WAIT);
    await page.clock.runFor(UNDO_WINDOW_MS + 1_000);
    await agentSaid(page, 'Answer to q1: "Generated"').waitFor(WAIT);
    const replies = await agentReplies(world, sessionId);
    expect(replies.some((reply) => reply.includes('Answer to q1: "Generated"'))).toBe(true);
    const tasks = await api<{ tasks: { title: string }[] }>(world, 'GET', '/api/v1/tasks');
    expect(tasks.tasks.map((task) => task.title)).toContain('Demo: an agent asks you a question');
    await context.close();
  });

  it('"Connect an agent" shows the MCP command with a new token, on a phone with 44 px targets', async () => {
    const { context, page } = await open('phone');
    await page.goto(`${world.origin}/`);
    await live(page);
    await page.getByTestId('first-run').waitFor(WAIT);
    expect(await smallTargets(page, 'first-run')).toEqual([]);
    await page.getByTestId('first-run-connect').click();
    await page.getByTestId('claude-code-mint').click();
    const command = page.getByTestId('claude-code-command');
    await expect
      .poll(() => command.inputValue(), WAIT)
      .toMatch(
        /^claude mcp add --transport http clarion http:\/\/127\.0\.0\.1:\d+\/mcp --header "Authorization: Bearer \S+"$/,
      );
    const tokens = await api<{ tokens: { name: string }[] }>(world, 'GET', '/api/v1/tokens');
    // Named with the time it was made, so a second one is told apart in the list.
    expect(tokens.tokens.some((token) => /^Claude Code \(.+\)$/.test(token.name))).toBe(true);
    expect(await overflowsHorizontally(page)).toBe(false);
    expect(await widerThanPhone(page)).toBe(false);
    await shoot(page, 'first-run-phone-connect');
    await context.close();
  });

  it('New task says why a working directory is refused, in the page’s words, then starts with a good one', async () => {
    const { context, page } = await open('phone');
    await page.goto(`${world.origin}/`);
    await live(page);
    await page.getByTestId('newTask-link').click();
    await page.getByTestId('new-task').waitFor(WAIT);
    await expect
      .poll(() => page.getByTestId('new-task-profile').locator('option').allTextContents(), WAIT)
      .toContain('demo');
    await page.getByTestId('new-task-title').fill('Typed in the form');
    await page.getByTestId('new-task-cwd').fill('relative/path');
    await page.getByTestId('new-task-prompt').fill('/ask Which file first?');
    await page.getByTestId('new-task-create').click();
    const problem = page.getByTestId('new-task-cwd-problem');
    await problem.waitFor(WAIT);
    // The server's reason (`relative_path`) in the page's language, not its English.
    await expect(problem.textContent()).resolves.toContain('full path');
    await expect(page.getByTestId('new-task-cwd').getAttribute('aria-invalid')).resolves.toBe(
      'true',
    );
    const before = await api<{ tasks: unknown[] }>(world, 'GET', '/api/v1/tasks');
    expect(await smallTargets(page, 'new-task')).toEqual([]);
    expect(await overflowsHorizontally(page)).toBe(false);
    expect(await widerThanPhone(page)).toBe(false);
    await shoot(page, 'new-task-phone-bad-cwd');

    await page.getByTestId('new-task-cwd').fill(tmpdir());
    // Enter in a field submits the form.
    await page.getByTestId('new-task-title').press('Enter');
    await page.waitForURL(/\/sessions\/[^/]+$/, WAIT);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(page.getByTestId('clarification-overlay').textContent()).resolves.toContain(
      'Which file first?',
    );
    const after = await api<{ tasks: unknown[] }>(world, 'GET', '/api/v1/tasks');
    expect(after.tasks.length).toBe(before.tasks.length + 1);
    await context.close();
  });

  it('each rule’s Revoke names the command and the place it revokes', async () => {
    const side = await api<{ workspace: { id: string } }>(world, 'POST', '/api/v1/workspaces', {
      name: 'Side checkout',
    });
    for (const workspaceId of [undefined, side.workspace.id]) {
      const task = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
        title: 'Always allowed here',
        prompt: '/permission',
        ...(workspaceId === undefined ? {} : { workspace_id: workspaceId }),
      });
      const asked = await waitingConsent(task.session.id);
      await api(world, 'POST', `/api/v1/user-inputs/${asked.id}/respond`, {
        option_id: 'allow-always',
      });
    }
    await until(
      () => api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'),
      (list) => list.rules.length === 2,
    );

    const { context, page } = await open('desktop');
    await page.goto(`${world.origin}/settings`);
    await live(page);
    const buttons = page.getByTestId('consent-rule-revoke');
    await buttons.nth(1).waitFor(WAIT);
    const labels = await Promise.all(
      [0, 1].map((index) => buttons.nth(index).getAttribute('aria-label')),
    );
    // The same command in two workspaces: each button says which rule it revokes.
    expect(new Set(labels).size).toBe(2);
    expect(labels[0]).toContain('Delete the build cache');
    expect(labels[0]).toContain('Side checkout');
    for (const index of [1, 0]) {
      await buttons.nth(index).click();
      await expect
        .poll(() => page.getByTestId('consent-rule-revoke').count(), { timeout: 10_000 })
        .toBe(index);
    }
    await page.getByTestId('consent-rules-empty').waitFor(WAIT);
    await context.close();
  });

  it('a rule revoked in Settings makes the next permission request ask again', async () => {
    const first = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Always allowed',
      prompt: '/permission',
    });
    const asked = await waitingConsent(first.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${asked.id}/respond`, {
      option_id: 'allow-always',
    });
    await until(
      () => api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'),
      (list) => list.rules.length === 1,
    );

    const { context, page } = await open('desktop');
    await page.goto(`${world.origin}/settings`);
    await live(page);
    const rule = page.getByTestId('consent-rule');
    await rule.waitFor(WAIT);
    await expect(rule.textContent()).resolves.toContain('demo');
    // The rule names the command it allows, not only the tool's kind.
    await expect(rule.textContent()).resolves.toContain('delete: Delete the build cache');
    await expect(rule.textContent()).resolves.toContain('Set by admin');
    // …and where it holds: the workspace and folder of the task it was chosen in.
    const [kept] = (await api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'))
      .rules;
    expect(kept?.scope?.workspace_name).toBe('Default');
    await expect(rule.getByTestId('consent-rule-scope').textContent()).resolves.toBe(
      `In Default · folder ${kept?.scope?.cwd ?? ''}`,
    );
    await shoot(page, 'settings-consent-rules-desktop');
    await rule.getByTestId('consent-rule-revoke').click();
    await page.getByTestId('consent-rules-empty').waitFor(WAIT);
    const rules = await api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules');
    expect(rules.rules).toEqual([]);
    // The revoke is recorded as the person's, made in the web app, and listed so.
    const revoked = page.locator(
      `[data-testid="consent-rule-revoked"][data-rule-id="${kept?.id ?? ''}"]`,
    );
    await revoked.waitFor(WAIT);
    await expect(revoked.getByTestId('consent-rule-revoked-by').textContent()).resolves.toContain(
      'Revoked by admin (web app)',
    );

    const next = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Asks again',
      prompt: '/permission',
    });
    const again = await waitingConsent(next.session.id);
    expect(again).toMatchObject({ kind: 'consent', status: 'awaiting' });
    await page.goto(`${world.origin}/sessions/${next.session.id}`);
    await page
      .locator(`[data-testid="user-input-card"][data-request-id="${again.id}"]`)
      .getByTestId('consent-option')
      .first()
      .waitFor(WAIT);
    await context.close();
  });

  it('a rule revoked elsewhere leaves the list when Settings is shown again, as revoked there', async () => {
    const task = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Revoked elsewhere',
      prompt: '/permission',
    });
    const asked = await waitingConsent(task.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${asked.id}/respond`, {
      option_id: 'allow-always',
    });
    const listed = await until(
      () => api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'),
      (list) => list.rules.length > 0,
    );
    const id = listed.rules[0]?.id ?? '';

    const { context, page } = await open('desktop');
    await page.goto(`${world.origin}/settings`);
    await live(page);
    const rule = page.locator(`[data-testid="consent-rule"][data-rule-id="${id}"]`);
    await rule.waitFor(WAIT);
    // Another tab, or the API, revokes it; this tab is then shown again.
    await api(world, 'DELETE', `/api/v1/consent-rules/${id}`);
    await page.evaluate("window.dispatchEvent(new Event('focus'))");
    await rule.waitFor({ ...WAIT, state: 'detached' });
    const revoked = page.locator(`[data-testid="consent-rule-revoked"][data-rule-id="${id}"]`);
    await expect(revoked.getByTestId('consent-rule-revoked-by').textContent()).resolves.toContain(
      'Revoked by admin (API)',
    );
    await context.close();
  });

  it('Revoke on a rule another tab already revoked says no failure: the rule is gone', async () => {
    const task = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Revoked twice',
      prompt: '/permission',
    });
    const asked = await waitingConsent(task.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${asked.id}/respond`, {
      option_id: 'allow-always',
    });
    const listed = await until(
      () => api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'),
      (list) => list.rules.length > 0,
    );
    const id = listed.rules[0]?.id ?? '';

    const { context, page } = await open('desktop');
    // A tab that has not heard the revoke yet (its frame is on its way): this one never does.
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      const server = socket.connectToServer();
      server.onMessage((message) => {
        if (!String(message).includes('"consent_rules_changed"')) socket.send(message);
      });
    });
    // It reads the list as it opens and again as its events connect: a read the server answers
    // after the revoke below would show the rule revoked, and take its Revoke away. Those it made
    // are answered first; any it makes from then on waits until Revoke is pressed.
    let reading = 0;
    let holding = false;
    let release = (): void => undefined;
    const released = new Promise<void>((done) => (release = done));
    await liveRoute(page, '**/api/v1/consent-rules', async (route) => {
      if (holding) {
        await released;
        await route.continue();
        return;
      }
      reading += 1;
      try {
        await route.fulfill({ response: await route.fetch() });
      } finally {
        reading -= 1;
      }
    });
    await page.goto(`${world.origin}/settings`);
    await live(page);
    const rule = page.locator(`[data-testid="consent-rule"][data-rule-id="${id}"]`);
    await rule.waitFor(WAIT);
    holding = true;
    await expect.poll(() => reading, WAIT).toBe(0);
    await api(world, 'DELETE', `/api/v1/consent-rules/${id}`);
    await rule.getByTestId('consent-rule-revoke').click();
    release();
    await rule.waitFor({ ...WAIT, state: 'detached' });
    const section = page.getByTestId('consent-rules');
    await expect(section.getByRole('alert').count()).resolves.toBe(0);
    await context.close();
  });

  it('a revoked rule kept before rules named their command is listed without advice to revoke it', async () => {
    const me = await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me');
    await world.clarion.store.db
      .insertInto('consent_rules')
      .values({
        id: 'legacy-rule',
        user_id: me.user.id,
        agent_profile: 'shell',
        tool_key: 'execute',
        surface: 'web',
        created_at: '2026-12-01T00:00:00.000Z',
        updated_at: '2026-12-01T00:00:00.000Z',
      })
      .execute();
    await api(world, 'DELETE', '/api/v1/consent-rules/legacy-rule');

    const { context, page } = await open('desktop');
    await page.goto(`${world.origin}/settings`);
    await live(page);
    const revoked = page.locator(
      '[data-testid="consent-rule-revoked"][data-rule-id="legacy-rule"]',
    );
    await revoked.waitFor(WAIT);
    const text = (await revoked.textContent()) ?? '';
    expect(text).toContain('execute · shell');
    expect(text).not.toContain('Revoke it');
    await context.close();
  });

  it('a rule’s answer says "you" only to whoever set the rule: other members read the name', async () => {
    const admin = await api<{ user: { id: string; name: string } }>(world, 'GET', '/api/v1/me');
    const bob = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Bob',
    });
    const { workspaces } = await api<{ workspaces: { id: string; name: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    const home = workspaces.find((workspace) => workspace.name === 'Default');
    await api(world, 'POST', `/api/v1/workspaces/${home?.id ?? ''}/members`, {
      user_id: bob.user.id,
      role: 'member',
    });
    const first = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Sets a rule',
      prompt: '/permission',
    });
    const asked = await waitingConsent(first.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${asked.id}/respond`, {
      option_id: 'allow-always',
    });
    await until(
      () => api<{ rules: ConsentRuleView[] }>(world, 'GET', '/api/v1/consent-rules'),
      (list) => list.rules.length === 1,
    );
    const next = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Answered by the rule',
    });

    // Both watch the session when the rule answers its consent. The admin is signed in already.
    const pages = [
      { page: await signedInPage(world, browser, bob.user.id), who: admin.user.name },
      { page: (await open('desktop')).page, who: 'you' },
    ];
    for (const { page } of pages) {
      await page.goto(`${world.origin}/sessions/${next.session.id}`);
      await live(page);
    }
    await api(world, 'POST', `/api/v1/sessions/${next.session.id}/messages`, {
      text: '/permission',
      admission_key: 'answered-by-the-rule',
    });
    for (const { page, who } of pages) {
      const remembered = page.locator('[data-testid="user-input-card"][data-outcome="remembered"]');
      await remembered.waitFor(WAIT);
      await expect(remembered.getByTestId('user-input-outcome').textContent()).resolves.toBe(
        `Allowed without asking: ${who} chose “Always allow” earlier.`,
      );
      await page.context().close();
    }
  });
});
