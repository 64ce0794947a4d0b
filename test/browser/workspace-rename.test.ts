/**
 * Workspaces on the People page for an admin, in Debian's Chromium against a
 * real server: a workspace another admin made (which the admin is not in)
 * shows, saying so, and can be renamed from the keyboard, the focus staying
 * on the control; a refused name is said with the field it belongs to.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { MAX_ACCOUNT_NAME_CHARS } from '../../src/wire/limits.js';
import { api, signedInPage, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('workspaces on the People page', () => {
  const started = useWorld();

  async function secondAdminsWorkspace(name: string): Promise<string> {
    const { world } = started;
    const ada = await api<{ token: string }>(world, 'POST', '/api/v1/users', {
      name: 'Ada',
      is_admin: true,
    });
    const response = await fetch(`${world.clarion.url}/api/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ada.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { workspace: { id: string } }).workspace.id;
  }

  const focusedTestId = (page: Page): Promise<unknown> =>
    page.evaluate("document.activeElement?.getAttribute('data-testid') ?? null");

  it("shows another admin's workspace and renames it from the keyboard", async () => {
    const id = await secondAdminsWorkspace('Ada’s team');
    const page = await signedInPage(started.world, started.browser);
    await page.getByTestId('people-link').click();
    const section = page.locator(`[data-testid="workspace"][data-workspace-id="${id}"]`);
    await section.getByRole('heading', { name: 'Ada’s team', exact: true }).waitFor(WAIT);
    await section.getByTestId('workspace-not-member').waitFor(WAIT);

    await section.getByTestId('workspace-rename').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedTestId(page)).toBe('workspace-rename-name');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Ada’s crew');
    await page.keyboard.press('Enter');
    await section.getByRole('heading', { name: 'Ada’s crew', exact: true }).waitFor(WAIT);
    await expect.poll(() => focusedTestId(page)).toBe('workspace-rename');
    const all = await api<{ workspaces: { id: string; name: string }[] }>(
      started.world,
      'GET',
      '/api/v1/workspaces?scope=all',
    );
    expect(all.workspaces.find((each) => each.id === id)?.name).toBe('Ada’s crew');

    // The server refuses a name (sent too long here): the refusal belongs to the field.
    await liveRoute(page, `**/api/v1/workspaces/${id}`, (route) =>
      route.continue({
        postData: JSON.stringify({ name: 'x'.repeat(MAX_ACCOUNT_NAME_CHARS + 1) }),
      }),
    );
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedTestId(page)).toBe('workspace-rename-name');
    await page.keyboard.type(' 2');
    await page.keyboard.press('Enter');
    const refused = section.getByTestId('workspace-rename-refused');
    await refused.waitFor(WAIT);
    const field = section.getByTestId('workspace-rename-name');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(field.getAttribute('aria-describedby')).resolves.toBe(
      await refused.getAttribute('id'),
    );
    await expect.poll(() => focusedTestId(page)).toBe('workspace-rename-name');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedTestId(page)).toBe('workspace-rename');
    await section.getByRole('heading', { name: 'Ada’s crew', exact: true }).waitFor(WAIT);
    await page.context().close();
  });
});
