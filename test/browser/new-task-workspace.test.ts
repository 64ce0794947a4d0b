/**
 * The New task form's workspace choice, in Chromium against a real server:
 * a person in one workspace is not asked; once in two, they choose, the task
 * lands where they chose (as REST reads it), the task list names each
 * task's workspace, and the form offers that workspace first next time.
 */
import { describe, expect, it } from 'vitest';
import { api, useWorld } from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';

interface Workspace {
  id: string;
  name: string;
}

describe('choosing a new task’s workspace', () => {
  const suite = useWorld();

  it('asks only a person in several workspaces, sends the choice and offers it again', async () => {
    const { world, browser } = suite;
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);

    await page.goto(`${world.origin}/tasks/new`);
    await page
      .getByTestId('new-task-profile')
      .locator('option')
      .first()
      .waitFor({
        state: 'attached',
        ...WAIT,
      });
    expect(await page.getByTestId('new-task-workspace').count()).toBe(0);

    const { workspace: second } = await api<{ workspace: Workspace }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Second team' },
    );
    await page.reload();
    const choice = page.getByLabel('Workspace');
    await choice.locator('option', { hasText: 'Second team' }).waitFor({
      state: 'attached',
      ...WAIT,
    });
    expect(await choice.inputValue()).not.toBe(second.id);
    await choice.selectOption({ label: 'Second team' });
    await page.getByTestId('new-task-title').fill('For the second team');
    await page.getByTestId('new-task-prompt').fill('hello');
    await page.getByTestId('new-task-create').click();
    await page.waitForURL(/\/sessions\//, WAIT);

    const { tasks } = await api<{ tasks: { title: string; workspace_id: string }[] }>(
      world,
      'GET',
      '/api/v1/tasks',
    );
    expect(tasks.find((task) => task.title === 'For the second team')?.workspace_id).toBe(
      second.id,
    );

    await page.goto(`${world.origin}/tasks/new`);
    await choice.locator('option', { hasText: 'Second team' }).waitFor({
      state: 'attached',
      ...WAIT,
    });
    await expect.poll(() => choice.inputValue(), WAIT).toBe(second.id);

    await page.goto(`${world.origin}/`);
    const listed = page.getByTestId('task-link').filter({ hasText: 'For the second team' });
    await expect
      .poll(() => listed.getByTestId('task-workspace').textContent(), WAIT)
      .toBe('Workspace: Second team');
    await context.close();
  });
});
