/**
 * Issue 14 in Debian's Chromium against a real server: the desktop signs in
 * with the start-up link and mints a phone link in Settings; a phone opens it
 * and answers from the inbox; the spent link shows the styled, translated
 * page; an admin-made second user signs in with `sign_in_url` and sees only
 * their workspace's items; the token sections make, show and revoke tokens.
 * Screenshots go to dist/test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import QRCode from 'qrcode';
import {
  api,
  ARTIFACTS,
  freshPage,
  launchChromium,
  startWorld,
  viaOrigin,
  type World,
} from './support/harness.js';
import {
  agentSaid,
  holdFirst,
  option,
  settleRequests,
  WAIT,
} from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

const PHONE = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 2,
};

/** The focused element's test ID, or `body` when the focus went nowhere. */
const focusedTestId = (page: Page) =>
  page.evaluate<string>(
    `document.activeElement === document.body ? 'body' : (document.activeElement?.dataset.testid ?? 'none')`,
  );

describe('signing in anywhere, as anyone', () => {
  let world: World;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  async function open(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const page = await freshPage(browser, options);
    contexts.push(page.context());
    return page;
  }

  const shoot = (page: Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  /** A task whose demo agent asks at once, optionally in another workspace; waits for its question. */
  async function askingTaskIn(title: string, workspaceId?: string): Promise<void> {
    const created = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: '/ask',
      ...(workspaceId === undefined ? {} : { workspace_id: workspaceId }),
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const pending = await api<{ bundles: { session_id: string }[] }>(
        world,
        'GET',
        '/api/v1/pending',
      );
      if (pending.bundles.some((bundle) => bundle.session_id === created.session.id)) return;
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error(`no question in ${title} within 30 s`);
  }

  let phoneLink = '';

  it('mints a phone link on the desktop; the phone opens it and answers from the inbox', async () => {
    await askingTaskIn('Phone question');
    const desktop = await open({ viewport: { width: 1280, height: 900 } });
    await desktop.goto(world.signInUrl);
    await desktop.waitForURL(`${world.origin}/`);
    await desktop.getByTestId('settings-link').click();
    // By keyboard: the focus stays on the button that made the link, not the page's body.
    await desktop.getByTestId('phone-sign-in-mint').focus();
    const minted = desktop.waitForResponse((response) =>
      response.url().endsWith('/api/v1/auth/sign-in-links'),
    );
    await desktop.keyboard.press('Enter');
    const { expires_at: expiresAt } = (await (await minted).json()) as { expires_at: string };
    const url = desktop.getByTestId('phone-sign-in-url');
    await url.waitFor(WAIT);
    await expect(focusedTestId(desktop)).resolves.toBe('phone-sign-in-mint');
    phoneLink = await url.inputValue();
    expect(phoneLink).toMatch(/\/auth\/sign-in\?token=clr_[\w-]+$/);
    // The QR code is an SVG image the CSP let load, and it encodes exactly that link.
    const qr = desktop.getByTestId('phone-sign-in-qr');
    const src = (await qr.getAttribute('src')) ?? '';
    const prefix = 'data:image/svg+xml;charset=utf-8,';
    expect(src.startsWith(prefix)).toBe(true);
    expect(decodeURIComponent(src.slice(prefix.length))).toBe(
      await QRCode.toString(phoneLink, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }),
    );
    await expect(
      desktop.evaluate("document.querySelector('[data-testid=phone-sign-in-qr]').naturalWidth"),
    ).resolves.toBeGreaterThan(0);
    // Said as an invite's link says it (people.test.ts): a date and a time of day.
    const until = await desktop.evaluate(
      (at) => new Date(at).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }),
      expiresAt,
    );
    await expect(desktop.getByTestId('phone-sign-in-expires').textContent()).resolves.toBe(
      `Works once, until ${until}.`,
    );
    await shoot(desktop, 'sign-in-phone-link');
    // At a phone's width the link wraps to more lines, and the box grows to show them all.
    await desktop.setViewportSize(PHONE.viewport);
    const hidden = await desktop.evaluate<number>(
      `(() => {
        const field = document.querySelector('[data-testid="phone-sign-in-url"]');
        return field.scrollHeight - field.clientHeight;
      })()`,
    );
    expect(hidden).toBeLessThanOrEqual(0);

    const phone = await open(PHONE);
    await phone.goto(viaOrigin(world, phoneLink));
    await phone.waitForURL(`${world.origin}/`);
    const item = phone.getByTestId('inbox-item').filter({ hasText: 'Phone question' });
    await item.waitFor(WAIT);
    await shoot(phone, 'sign-in-phone-inbox');
    await item.getByRole('link').click();
    await phone.getByTestId('clarification-overlay').waitFor(WAIT);
    await option(phone, 'Generated').click();
    await agentSaid(phone, 'Answer to q1: "Generated"').waitFor(WAIT);
  });

  it('shows a spent link the styled page, in the browser’s language, with how to get a new one', async () => {
    expect(phoneLink).not.toBe('');
    const german = await open({ ...PHONE, locale: 'de-DE' });
    await german.goto(viaOrigin(world, phoneLink));
    await german.waitForURL(`${world.origin}/signed-out?reason=link_invalid`);
    const page = german.getByTestId('link-invalid');
    await page.waitFor(WAIT);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Dieser Anmeldelink funktioniert nicht mehr',
    );
    await expect(page.textContent()).resolves.toContain('clarion sign-in-link --user NAME');
    await expect(page.textContent()).resolves.toContain('Auf dem Handy anmelden');
    // Styled by the app's own stylesheet, not a bare HTML page.
    await expect(
      german.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=link-invalid]')).maxWidth",
      ),
    ).resolves.toBe('640px');
    await shoot(german, 'sign-in-link-invalid-de');

    const japanese = await open({ locale: 'ja-JP' });
    await japanese.goto(viaOrigin(world, phoneLink));
    await japanese.getByTestId('link-invalid').waitFor(WAIT);
    await expect(japanese.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'このサインインリンクはもう使えません',
    );
  });

  it('signs a second user in with sign_in_url; they see only their workspace’s items', async () => {
    const bob = await api<{ user: { id: string }; sign_in_url: string }>(
      world,
      'POST',
      '/api/v1/users',
      { name: 'bob' },
    );
    const workspace = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Bob’s team' },
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspace.workspace.id}/members`, {
      user_id: bob.user.id,
    });
    await askingTaskIn('Bob question', workspace.workspace.id);
    await askingTaskIn('Admin-only question');

    const page = await open({ viewport: { width: 1280, height: 900 } });
    await page.goto(viaOrigin(world, bob.sign_in_url));
    await page.waitForURL(`${world.origin}/`);
    await page.getByTestId('inbox-item').filter({ hasText: 'Bob question' }).waitFor(WAIT);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    const titles = await page.getByTestId('task-link').allTextContents();
    expect(titles.some((title) => title.includes('Bob question'))).toBe(true);
    expect(titles.some((title) => title.includes('Admin-only question'))).toBe(false);
    expect(titles.some((title) => title.includes('Phone question'))).toBe(false);
    await expect(
      page.getByTestId('inbox-item').filter({ hasText: 'Admin-only question' }).count(),
    ).resolves.toBe(0);
    await shoot(page, 'sign-in-second-user');
  });

  it('makes, shows once and revokes API tokens, and gives the Claude Code line', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const link = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    await page.goto(viaOrigin(world, link.url));
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/settings`);

    await page.getByTestId('claude-code-mint').focus();
    await page.keyboard.press('Enter');
    const command = await page.getByTestId('claude-code-command').inputValue();
    await expect(focusedTestId(page)).resolves.toBe('claude-code-mint');
    expect(command).toMatch(
      new RegExp(
        `^claude mcp add --transport http clarion ${world.origin.replaceAll('.', '\\.')}/mcp ` +
          '--header "Authorization: Bearer (clr_[\\w-]+)"$',
      ),
    );
    const secret = /Bearer (clr_[\w-]+)/.exec(command)?.[1] ?? '';
    // An agent token: it asks through /mcp and reaches no REST route, not even a read.
    const me = await fetch(`${world.clarion.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(me.status).toBe(403);
    const tokens = page.getByTestId('api-token');
    const claude = tokens.filter({ hasText: 'Claude Code' });
    await claude.waitFor(WAIT);
    expect(await claude.getByTestId('api-token-kind').textContent()).toBe(
      'Agent: asks, never decides',
    );

    await page.getByTestId('api-token-name').fill('laptop script');
    await page.getByTestId('api-token-create').focus();
    await page.keyboard.press('Enter');
    const shown = await page.getByTestId('api-token-secret').inputValue();
    expect(shown).toMatch(/^clr_/);
    // The button goes disabled with the name emptied: the focus moves to what was made.
    await expect.poll(() => focusedTestId(page), WAIT).toBe('api-token-created');
    await tokens.filter({ hasText: 'laptop script' }).waitFor(WAIT);
    // The list names tokens; no secret appears in it.
    expect((await tokens.allTextContents()).join(' ')).not.toContain('clr_');
    await shoot(page, 'sign-in-tokens');

    await page.getByRole('button', { name: 'Revoke the token Claude Code' }).click();
    // One tap only asks: the token still works until the person confirms.
    const confirm = page.getByTestId('api-token-revoke-confirm');
    await expect
      .poll(() => confirm.textContent(), WAIT)
      .toContain('such as a Claude Code connected with it, is cut off at once');
    const meanwhile = await fetch(`${world.clarion.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    // 403, not 401: the agent token still authenticates (it may not read /me).
    expect(meanwhile.status).not.toBe(401);
    // Unreachable, the refusal says so, and the token stays listed.
    await liveRoute(page, '**/api/v1/tokens/*', (route) => route.abort('connectionrefused'));
    await confirm.getByRole('button', { name: 'Revoke token' }).click();
    await expect
      .poll(() => page.getByTestId('api-tokens').getByRole('alert').textContent(), WAIT)
      .toBe('The token was not revoked (no reply from the server; check the connection).');
    // The confirm step that had the focus is gone: it is back on the token's own Revoke.
    const focused = () =>
      page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? 'the page'");
    await expect.poll(focused, WAIT).toMatch(/^Revoke the token Claude Code/);
    await page.unrouteAll();
    await page.getByRole('button', { name: 'Revoke the token Claude Code' }).click();
    const revokes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') revokes.push(request.url());
    });
    const held = await holdFirst(page, '**/api/v1/tokens/*', 'DELETE');
    await confirm.getByRole('button', { name: 'Revoke token' }).focus();
    await page.keyboard.press('Enter');
    await held.arrived;
    // The step goes as the revoke starts: Revoke, busy, holds the focus meanwhile.
    await expect.poll(focused, WAIT).toMatch(/^Revoke the token Claude Code/);
    await expect(
      page.evaluate('document.activeElement?.getAttribute("aria-disabled")'),
    ).resolves.toBe('true');
    await page.keyboard.press('Enter');
    await settleRequests(page);
    expect(revokes).toHaveLength(1);
    held.release();
    await tokens.filter({ hasText: 'Claude Code' }).waitFor({ state: 'detached', ...WAIT });
    // Its row is gone with its buttons: the keyboard's place is the next token's Revoke.
    await expect.poll(focused, WAIT).toMatch(/^Revoke the token (?!Claude Code)/);
    const after = await fetch(`${world.clarion.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(after.status).toBe(401);
  });

  it('says why a token was refused, clears it on moving on, and names each Claude Code token apart', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const link = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    await page.goto(viaOrigin(world, link.url));
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/settings`);

    const section = page.getByTestId('api-tokens');
    // A zero-width space shows nothing: the server refuses it and says why.
    await page.getByTestId('api-token-name').fill('\u200b');
    await page.getByTestId('api-token-create').click();
    const alert = section.getByRole('alert');
    await alert.waitFor(WAIT);
    const said = (await alert.textContent()) ?? '';
    expect(said).toMatch(/^No token was created: /);
    expect(said).not.toContain('invalid request');
    // Moving on to another section takes the refusal away.
    await page.getByTestId('claude-code-mint').focus();
    await alert.waitFor({ state: 'detached', ...WAIT });

    // Two clicks a minute apart, as a person makes them; timers keep running.
    await page.clock.setFixedTime(new Date('2026-03-02T09:00:00Z'));
    await page.getByTestId('claude-code-mint').click();
    await page.getByTestId('claude-code-command').waitFor(WAIT);
    await page.clock.setFixedTime(new Date('2026-03-02T09:01:00Z'));
    await page.getByTestId('claude-code-mint').click();
    const claude = page.getByTestId('api-token').filter({ hasText: 'Claude Code' });
    await expect.poll(() => claude.count(), { timeout: 10_000 }).toBe(2);
    const names = await claude.locator('.token-name').allTextContents();
    expect(new Set(names).size).toBe(2);
    await expect(page.getByTestId('claude-code').textContent()).resolves.toContain(
      'Each click makes another one',
    );
  });
});
