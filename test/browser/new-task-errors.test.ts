/**
 * The New task form says what is wrong in the page's language: a missing or
 * too long title is caught in the browser (nothing is sent) and a server
 * that cannot be reached is said in words, where the form showed the
 * server's and the browser's English ("must not be empty", "Failed to
 * fetch") on a German or Japanese page. Chromium (Debian's) against a real
 * server.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TASK_TITLE_CHARS } from '../../src/wire/index.js';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import { useSuite, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('the New task form’s errors', () => {
  const suite = useSuite();

  it('are in the page’s language: a missing or long title, and an unreachable server', async () => {
    const { page } = await suite.desktop({ locale: 'de-DE' });
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/tasks')) posted += 1;
    });
    await page.goto(`${suite.world.origin}/tasks/new`);
    await page.getByTestId('language-switch').selectOption('de');
    const problem = page.getByTestId('new-task-title-problem');
    const focused = () =>
      page.evaluate<string | null>('document.activeElement?.getAttribute("data-testid") ?? null');

    await page.getByTestId('new-task-create').click();
    await expect(problem.textContent(WAIT)).resolves.toBe(de.newTask.titleRequired);
    // The keyboard goes from Start task to the field that needs it.
    await expect.poll(focused, WAIT).toBe('new-task-title');
    await page.getByTestId('new-task-title').fill('  \u200b ');
    await page.getByTestId('new-task-create').click();
    await expect(problem.textContent(WAIT)).resolves.toBe(de.newTask.titleRequired);
    await page.getByTestId('new-task-title').fill('x'.repeat(MAX_TASK_TITLE_CHARS + 1));
    await page.getByTestId('new-task-create').click();
    await expect(problem.textContent(WAIT)).resolves.toBe(
      de.newTask.titleTooLong.replace('{{max}}', String(MAX_TASK_TITLE_CHARS)),
    );
    await expect.poll(focused, WAIT).toBe('new-task-title');
    expect(posted).toBe(0);

    await liveRoute(page, '**/api/v1/tasks', (route) => route.abort());
    await page.getByTestId('new-task-title').fill('Ein Titel');
    await page.getByTestId('new-task-create').click();
    await expect(page.getByTestId('new-task-error').textContent(WAIT)).resolves.toBe(
      de.newTask.failed.replace('{{error}}', de.failure.network),
    );

    // What only the server can judge, the working directory, is said in words too.
    await page.unroute('**/api/v1/tasks');
    const cwdProblem = page.getByTestId('new-task-cwd-problem');
    await page.getByTestId('new-task-cwd').fill('relative/dir');
    await page.getByTestId('new-task-create').click();
    await expect(cwdProblem.textContent(WAIT)).resolves.toBe(de.newTask.problem.cwd_not_absolute);
    await page.getByTestId('new-task-cwd').fill('/no/such/directory/for/clarion');
    await page.getByTestId('new-task-create').click();
    await expect
      .poll(() => cwdProblem.textContent(), WAIT)
      .toBe(de.newTask.problem.cwd_not_directory);
    await expect(page.getByTestId('new-task-error').count()).resolves.toBe(0);

    await page.getByTestId('language-switch').selectOption('ja');
    await page.getByTestId('new-task-title').fill('');
    await page.getByTestId('new-task-create').click();
    await expect(problem.textContent(WAIT)).resolves.toBe(ja.newTask.titleRequired);
  });

  it('follow a change of language without being sent again', async () => {
    const { page } = await suite.desktop({ locale: 'de-DE' });
    await page.goto(`${suite.world.origin}/tasks/new`);
    await page.getByTestId('language-switch').selectOption('de');
    await page.getByTestId('new-task-create').click();
    const problem = page.getByTestId('new-task-title-problem');
    await expect(problem.textContent(WAIT)).resolves.toBe(de.newTask.titleRequired);
    await page.getByTestId('language-switch').selectOption('ja');
    await expect.poll(() => problem.textContent(), WAIT).toBe(ja.newTask.titleRequired);

    await liveRoute(page, '**/api/v1/tasks', (route) => route.abort());
    await page.getByTestId('new-task-title').fill('タイトル');
    await page.getByTestId('new-task-create').click();
    const error = page.getByTestId('new-task-error');
    await expect(error.textContent(WAIT)).resolves.toBe(
      ja.newTask.failed.replace('{{error}}', ja.failure.network),
    );
    await page.getByTestId('language-switch').selectOption('de');
    await expect
      .poll(() => error.textContent(), WAIT)
      .toBe(de.newTask.failed.replace('{{error}}', de.failure.network));
  });
});
