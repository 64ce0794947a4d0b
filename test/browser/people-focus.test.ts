/**
 * Keyboard focus on the People page after a removal: whoever removed a
 * member or deleted a user from the keyboard keeps their place on the page
 * (the workspace or the user list), not the document's start; a refused
 * removal hands focus back to the control that asked for it.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, signedInPage, useWorld } from './support/harness.js';
import { holdFirst, settleRequests, WAIT } from './support/clarification-pages.js';

interface NewUser {
  user: { id: string; name: string };
}

/** The focused element's test ID, its nearest one's, or `body` when focus went nowhere. */
const focused = (page: Page) =>
  page.evaluate<string>(`(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return 'body';
    return active.closest('[data-testid]')?.getAttribute('data-testid') ?? active.tagName;
  })()`);

/** The focused element's test ID and whether it reads busy. */
const focusedBusy = (page: Page) =>
  page.evaluate<string>(`(() => {
    const active = document.activeElement;
    return active?.getAttribute('data-testid') + ' busy=' + active?.getAttribute('aria-disabled');
  })()`);

/** Every DELETE the page makes, by URL. */
function recordDeletes(page: Page): string[] {
  const deletes: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'DELETE') deletes.push(request.url());
  });
  return deletes;
}

/** Whether the focus is inside the element `selector` names. */
const focusWithin = (page: Page, selector: string) =>
  page.evaluate<boolean>(
    `document.querySelector(${JSON.stringify(selector)})?.contains(document.activeElement) ?? false`,
  );

describe('focus on the People page after a removal', () => {
  const started = useWorld();

  async function peoplePage(): Promise<Page> {
    const page = await signedInPage(started.world, started.browser, undefined, {
      viewport: { width: 1280, height: 900 },
    });
    await page.getByTestId('people-link').click();
    await page.getByTestId('people').waitFor(WAIT);
    return page;
  }

  it('stays in the workspace once a member is removed by keyboard', async () => {
    const { world } = started;
    const kai = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Kai' });
    const ops = await api<{ workspace: { id: string } }>(world, 'POST', '/api/v1/workspaces', {
      name: 'Ops',
    });
    await api(world, 'POST', `/api/v1/workspaces/${ops.workspace.id}/members`, {
      user_id: kai.user.id,
    });
    const page = await peoplePage();
    const opsSection = page.locator(`[data-workspace-id="${ops.workspace.id}"]`);
    const row = opsSection.getByTestId('member').filter({ hasText: 'Kai' });
    await row.getByRole('button', { name: 'Remove Kai from Ops' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await expect(focused(page)).resolves.toBe('decision-confirm-yes');
    const deletes = recordDeletes(page);
    const held = await holdFirst(page, '**/api/v1/workspaces/*/members/*', 'DELETE');
    await page.keyboard.press('Enter');
    await held.arrived;
    // The step goes as the removal starts: Remove, which stands for it, holds the focus meanwhile.
    await expect.poll(() => focusedBusy(page)).toBe('member-remove busy=true');
    await page.keyboard.press('Enter');
    await settleRequests(page);
    expect(deletes).toHaveLength(1);
    await expect(page.getByTestId('decision-confirm').count()).resolves.toBe(0);
    held.release();
    await row.waitFor({ state: 'detached', ...WAIT });
    await expect(focused(page)).resolves.not.toBe('body');
    await expect(focusWithin(page, `[data-workspace-id="${ops.workspace.id}"]`)).resolves.toBe(
      true,
    );
    await page.context().close();
  });

  it('returns to the Remove button when the server refuses the removal', async () => {
    const { world } = started;
    const solo = await api<{ workspace: { id: string } }>(world, 'POST', '/api/v1/workspaces', {
      name: 'Solo',
    });
    const page = await peoplePage();
    const soloSection = page.locator(`[data-workspace-id="${solo.workspace.id}"]`);
    // The admin created Solo and is its only owner: the server refuses.
    const remove = soloSection.getByTestId('member-remove');
    await remove.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await soloSection.getByTestId('workspace-refused').waitFor(WAIT);
    await expect(focused(page)).resolves.toBe('member-remove');
    await page.context().close();
  });

  it('stays in the user list once a user is deleted by keyboard', async () => {
    const { world } = started;
    await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Lio' });
    const page = await peoplePage();
    const row = page.getByTestId('user').filter({ hasText: 'Lio' });
    await row.getByRole('button', { name: 'Delete Lio' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const deletes = recordDeletes(page);
    const held = await holdFirst(page, '**/api/v1/users/*', 'DELETE');
    await page.keyboard.press('Enter');
    await held.arrived;
    await expect.poll(() => focusedBusy(page)).toBe('user-delete busy=true');
    await page.keyboard.press('Enter');
    await settleRequests(page);
    expect(deletes).toHaveLength(1);
    await expect(page.getByTestId('decision-confirm').count()).resolves.toBe(0);
    held.release();
    await row.waitFor({ state: 'detached', ...WAIT });
    await expect(focusWithin(page, '[data-testid="users"]')).resolves.toBe(true);
    await page.context().close();
  });

  it('stays on the control used once a role is changed or a member added by keyboard', async () => {
    const { world } = started;
    const mia = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Mia' });
    const dev = await api<{ workspace: { id: string } }>(world, 'POST', '/api/v1/workspaces', {
      name: 'Dev',
    });
    await api(world, 'POST', `/api/v1/workspaces/${dev.workspace.id}/members`, {
      user_id: mia.user.id,
    });
    await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Nils' });
    const page = await peoplePage();
    const devSection = page.locator(`[data-workspace-id="${dev.workspace.id}"]`);
    const row = devSection.getByTestId('member').filter({ hasText: 'Mia' });
    await row.getByRole('button', { name: 'Make owner: Mia in Dev' }).focus();
    await page.keyboard.press('Enter');
    await row.and(page.locator('[data-role="owner"]')).waitFor(WAIT);
    await expect.poll(() => focused(page)).toBe('member-role-toggle');
    // Mia's own toggle, now offering the way back.
    await expect(
      focusWithin(
        page,
        `[data-workspace-id="${dev.workspace.id}"] [data-user-id="${mia.user.id}"] [aria-label="Make member: Mia in Dev"]`,
      ),
    ).resolves.toBe(true);

    await devSection.getByTestId('member-add-user').selectOption({ label: 'Nils' });
    await devSection.getByTestId('member-add').focus();
    await page.keyboard.press('Enter');
    await devSection.getByTestId('member').filter({ hasText: 'Nils' }).waitFor(WAIT);
    await expect
      .poll(() => focusWithin(page, `[data-workspace-id="${dev.workspace.id}"]`))
      .toBe(true);
    await page.context().close();
  });

  it('moves to the new link once a teammate is invited by keyboard', async () => {
    const page = await peoplePage();
    await page.getByTestId('invite-name').fill('Ola');
    await page.getByTestId('invite-submit').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('invite-link').waitFor(WAIT);
    // The emptied name disables Invite: the focus goes to what was made, not to the page.
    await expect.poll(() => focused(page)).toBe('invite-done');
    await page.context().close();
  });
});
