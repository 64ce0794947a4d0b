/**
 * The People page in Debian's Chromium against a real server: an admin
 * invites a teammate whose link (shown as text and QR code) signs them in in
 * another browser, where they see their workspace's members and no admin
 * control; members added, promoted and removed show on the admin's page and,
 * through `access_changed`, on the member's own open page; a workspace's last
 * owner cannot be demoted, removed or deleted, and the page says what to do
 * first; deleting someone asks first, on the page and from the keyboard, and
 * ends their open tab.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  api,
  ARTIFACTS,
  launchChromium,
  signedInWith,
  startWorld,
  type World,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

interface NewUser {
  user: { id: string; name: string };
  sign_in_url: string;
}

describe('the People page', () => {
  let world: World;
  let browser: Browser;
  let admin: Page;
  let defaultWorkspace: string;
  const contexts: BrowserContext[] = [];

  /** A browser signed in with `link`, live, on the People page. */
  async function signedIn(link: string): Promise<Page> {
    const page = await signedInWith(world, browser, link, {
      viewport: { width: 1280, height: 900 },
    });
    contexts.push(page.context());
    await page.getByTestId('people-link').click();
    await page.getByTestId('people').waitFor(WAIT);
    return page;
  }

  const workspace = (page: Page, name: string): Locator =>
    page.getByTestId('workspace').filter({ has: page.getByRole('heading', { name, exact: true }) });
  const memberRow = (page: Page, workspaceName: string, name: string): Locator =>
    workspace(page, workspaceName).getByTestId('member').filter({ hasText: name });
  const userRow = (page: Page, name: string): Locator =>
    page.getByTestId('user').filter({ hasText: name });

  async function newUser(name: string): Promise<NewUser> {
    return api<NewUser>(world, 'POST', '/api/v1/users', { name });
  }

  async function newWorkspace(name: string): Promise<string> {
    return (await api<{ workspace: { id: string } }>(world, 'POST', '/api/v1/workspaces', { name }))
      .workspace.id;
  }

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
    const workspaces = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    defaultWorkspace = workspaces.workspaces[0]?.id ?? '';
    const link = await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {});
    admin = await signedIn(link.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  it('invites a teammate whose one-time link signs them in elsewhere, with no admin controls', async () => {
    await admin.getByTestId('invite-name').fill('Maya');
    await expect(admin.getByTestId('invite-workspace').inputValue()).resolves.toBe(
      defaultWorkspace,
    );
    const reply = admin.waitForResponse(
      (response) =>
        response.url().endsWith('/api/v1/users') && response.request().method() === 'POST',
    );
    await admin.getByTestId('invite-submit').click();
    const invited = (await (await reply).json()) as { sign_in_expires_at: string };
    await admin.getByTestId('invite-done').waitFor(WAIT);
    await admin.getByTestId('invite-link-qr').waitFor(WAIT);
    // When the link stops working, in the person's language: a day from now.
    const until = await admin.evaluate(
      (at) => new Date(at).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }),
      invited.sign_in_expires_at,
    );
    await expect(admin.getByTestId('invite-link-expires').textContent()).resolves.toBe(
      `Works once, until ${until}.`,
    );
    expect(Date.parse(invited.sign_in_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const link = await admin.getByTestId('invite-link-url').inputValue();
    expect(link).toContain('/auth/sign-in?token=');
    // The page read its lists again: Maya is a user, and a member of the workspace chosen.
    await userRow(admin, 'Maya').waitFor(WAIT);
    await memberRow(admin, 'Default', 'Maya').waitFor(WAIT);
    await admin.screenshot({ path: join(ARTIFACTS, 'people-invited.png'), fullPage: true });

    const users = await api<{ users: { id: string; name: string }[] }>(
      world,
      'GET',
      '/api/v1/users',
    );
    const maya = users.users.find((user) => user.name === 'Maya');
    expect(maya).toBeDefined();

    // The link works in another browser, once, as Maya.
    const mayaPage = await signedIn(link);
    const me = await mayaPage.evaluate(() =>
      fetch('/api/v1/me').then((response) => response.json() as Promise<{ user: { id: string } }>),
    );
    expect(me.user.id).toBe(maya?.id);

    // A plain member sees the members, read-only.
    await memberRow(mayaPage, 'Default', 'Maya').waitFor(WAIT);
    await mayaPage.getByTestId('people-read-only').waitFor(WAIT);
    for (const control of [
      'invite',
      'users',
      'member-add',
      'member-remove',
      'member-role-toggle',
      'user-delete',
      'user-new-link',
    ]) {
      await expect(mayaPage.getByTestId(control).count(), control).resolves.toBe(0);
    }
    await mayaPage.screenshot({ path: join(ARTIFACTS, 'people-member.png'), fullPage: true });
  });

  it('makes a new sign-in link for an existing user', async () => {
    const omar = await newUser('Omar');
    await admin.reload();
    await userRow(admin, 'Omar').getByRole('button', { name: 'New sign-in link for Omar' }).click();
    const panel = userRow(admin, 'Omar').getByTestId('user-link');
    await panel.getByTestId('user-link-qr').waitFor(WAIT);
    const link = await panel.getByTestId('user-link-url').inputValue();
    const omarPage = await signedIn(link);
    const me = await omarPage.evaluate(() =>
      fetch('/api/v1/me').then((response) => response.json() as Promise<{ user: { id: string } }>),
    );
    expect(me.user.id).toBe(omar.user.id);
  });

  it('adds, promotes and removes a member, and the member’s own open page follows', async () => {
    const noor = await newUser('Noor');
    // In Default too, so leaving Ops leaves Noor a workspace and an events socket.
    await api(world, 'POST', `/api/v1/workspaces/${defaultWorkspace}/members`, {
      user_id: noor.user.id,
    });
    await newWorkspace('Ops');
    const noorPage = await signedIn(noor.sign_in_url);
    await workspace(noorPage, 'Default').waitFor(WAIT);
    await expect(workspace(noorPage, 'Ops').count()).resolves.toBe(0);

    await admin.reload();
    const ops = workspace(admin, 'Ops');
    await ops.getByTestId('member-add-user').selectOption({ label: 'Noor' });
    await ops.getByTestId('member-add').click();
    await memberRow(admin, 'Ops', 'Noor').waitFor(WAIT);
    // Noor's page heard `access_changed`: Ops appears there without a reload.
    await memberRow(noorPage, 'Ops', 'Noor').waitFor(WAIT);
    await expect(memberRow(noorPage, 'Ops', 'Noor').getAttribute('data-role')).resolves.toBe(
      'member',
    );

    await memberRow(admin, 'Ops', 'Noor')
      .getByRole('button', { name: 'Make owner: Noor in Ops' })
      .click();
    await memberRow(admin, 'Ops', 'Noor').and(admin.locator('[data-role="owner"]')).waitFor(WAIT);
    await memberRow(noorPage, 'Ops', 'Noor')
      .and(noorPage.locator('[data-role="owner"]'))
      .waitFor(WAIT);

    await memberRow(admin, 'Ops', 'Noor')
      .getByRole('button', { name: 'Remove Noor from Ops' })
      .click();
    const confirm = memberRow(admin, 'Ops', 'Noor').getByTestId('decision-confirm');
    await expect(confirm.textContent()).resolves.toContain('no longer see its tasks');
    await expect(confirm.textContent()).resolves.toContain('Agents working for them there stop');
    // Cancel changes nothing.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(memberRow(admin, 'Ops', 'Noor').count()).resolves.toBe(1);
    await memberRow(admin, 'Ops', 'Noor')
      .getByRole('button', { name: 'Remove Noor from Ops' })
      .click();
    await confirm.getByRole('button', { name: 'Remove Noor' }).click();
    await memberRow(admin, 'Ops', 'Noor').waitFor({ state: 'detached', ...WAIT });
    await workspace(noorPage, 'Ops').waitFor({ state: 'detached', ...WAIT });
    await workspace(noorPage, 'Default').waitFor(WAIT);
  });

  it('refuses to leave a workspace without an owner, and says what to do first', async () => {
    await newWorkspace('Solo');
    await admin.reload();
    const me = await api<{ user: { name: string } }>(world, 'GET', '/api/v1/me');
    const solo = workspace(admin, 'Solo');
    await memberRow(admin, 'Solo', me.user.name).getByTestId('member-role-toggle').click();
    const refused = solo.getByTestId('workspace-refused');
    await refused.waitFor(WAIT);
    await expect(refused.textContent()).resolves.toContain(
      'a workspace keeps at least one owner. Make another member an owner first',
    );
    await expect(refused.textContent()).resolves.toContain('"Solo"');
    await expect(memberRow(admin, 'Solo', me.user.name).getAttribute('data-role')).resolves.toBe(
      'owner',
    );

    await memberRow(admin, 'Solo', me.user.name).getByTestId('member-remove').click();
    await solo.getByTestId('decision-confirm-yes').click();
    await refused.waitFor(WAIT);
    await expect(memberRow(admin, 'Solo', me.user.name).count()).resolves.toBe(1);

    // A user who is some workspace's only owner cannot be deleted either.
    const rafa = await newUser('Rafa');
    const rafas = await newWorkspace('Rafa’s');
    await api(world, 'POST', `/api/v1/workspaces/${rafas}/members`, {
      user_id: rafa.user.id,
      role: 'owner',
    });
    await api(world, 'POST', `/api/v1/workspaces/${rafas}/members`, {
      user_id: (await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me')).user.id,
      role: 'member',
    });
    await admin.reload();
    await userRow(admin, 'Rafa').getByRole('button', { name: 'Delete Rafa' }).click();
    await userRow(admin, 'Rafa').getByTestId('decision-confirm-yes').click();
    const userRefused = userRow(admin, 'Rafa').getByTestId('user-refused');
    await userRefused.waitFor(WAIT);
    await expect(userRefused.textContent()).resolves.toContain(
      'Make another member an owner first',
    );
    await expect(userRow(admin, 'Rafa').count()).resolves.toBe(1);
    await admin.screenshot({ path: join(ARTIFACTS, 'people-last-owner.png'), fullPage: true });
  });

  it('deletes a user after a confirmation on the page, by keyboard; their open tab ends', async () => {
    const zoe = await newUser('Zoe');
    await api(world, 'POST', `/api/v1/workspaces/${defaultWorkspace}/members`, {
      user_id: zoe.user.id,
    });
    const zoePage = await signedIn(zoe.sign_in_url);
    await admin.reload();
    const remove = userRow(admin, 'Zoe').getByRole('button', { name: 'Delete Zoe' });
    await remove.focus();
    await admin.keyboard.press('Enter');
    const confirm = userRow(admin, 'Zoe').getByTestId('decision-confirm');
    const said = await confirm.textContent();
    expect(said).toContain('every token they hold stops working');
    expect(said).toContain('sessions of tasks they started that are still running fail');
    await admin.keyboard.press('Tab');
    await expect(
      admin.evaluate<string | null>("document.activeElement?.getAttribute('data-testid') ?? null"),
    ).resolves.toBe('decision-confirm-yes');
    await admin.keyboard.press('Enter');
    await userRow(admin, 'Zoe').waitFor({ state: 'detached', ...WAIT });
    await expect(memberRow(admin, 'Default', 'Zoe').count()).resolves.toBe(0);
    await zoePage.locator('[data-testid="sign-in"][data-ended="true"]').waitFor(WAIT);
  });
});
