/**
 * Stop, Delete session and Delete task in the session view, in Debian's
 * Chromium against a real server whose agents the test plays (so a turn
 * stays open as long as the test wants) and whose storage can be made to
 * refuse one statement. Stop says how it ended: stopped, nothing running
 * anymore (the turn ended before the cancel arrived), or why it failed. A
 * delete asks first; its cancel (Escape or Keep) changes nothing; once done
 * the tab leaves for the task's other session or the inbox, and a second tab
 * on the session is told it was deleted, alone or with its task. A delete
 * the storage refuses says the session stays and why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createSession } from '../../src/store/index.js';
import { StatementFaults } from '../support/statement-faults.js';
import { TestHost } from '../support/test-host.js';
import {
  ADMIN_TOKEN,
  adminSignedInState,
  api,
  launchChromium,
  startWorld,
  type CreatedTask,
  type StorageState,
  type World,
} from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };

/** The test ID of the element with the keyboard's focus, or null. */
const focusedOn = (page: Page) =>
  page.evaluate<string | null>(`document.activeElement?.dataset.testid ?? null`);

async function until(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

describe('stopping a turn and deleting from the session view', () => {
  let world: World;
  let browser: Browser;
  let signedIn: StorageState;
  const host = new TestHost();
  const faults = new StatementFaults();

  beforeAll(async () => {
    [world, browser] = await Promise.all([
      startWorld({ host, plugins: [faults] }),
      launchChromium(),
    ]);
    signedIn = await adminSignedInState(world, browser);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  /** A task whose agent has taken its first prompt and keeps the turn open. */
  async function runningTask(title: string): Promise<CreatedTask> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: `${title}: go`,
    });
    await until('the first prompt', () =>
      host.prompts.some((prompt) => prompt.sessionId === created.session.id),
    );
    return created;
  }

  /** A browser signed in as the world's person; its tabs share the sign-in. */
  async function signedInBrowser(): Promise<BrowserContext> {
    const context = await browser.newContext({ locale: 'en-US', storageState: signedIn });
    context.setDefaultTimeout(30_000);
    return context;
  }

  /** A tab on `path` whose events are live. */
  async function tab(context: BrowserContext, path: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${world.origin}${path}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    return page;
  }

  function stateOf(page: Page, state: string) {
    return page.getByTestId('session-state').and(page.locator(`[data-state="${state}"]`));
  }

  async function sessionStatus(sessionId: string): Promise<number> {
    const response = await fetch(`${world.clarion.url}/api/v1/sessions/${sessionId}/messages`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return response.status;
  }

  it('stops a running turn: Stop goes, the session idles, the transcript says who stopped it', async () => {
    const created = await runningTask('Stop me');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    await stateOf(page, 'running').waitFor(WAIT);

    // By keyboard: the focus stays on Stop while it asks, then moves to what it says once it goes.
    await page.getByRole('button', { name: 'Stop turn' }).focus();
    await page.keyboard.press('Enter');
    const outcome = page.getByTestId('session-stop-outcome');
    await outcome.and(page.locator('[data-outcome="stopped"]')).waitFor(WAIT);
    await expect(outcome.textContent()).resolves.toBe('Stopped: the agent’s turn was cancelled.');
    await stateOf(page, 'idle').waitFor(WAIT);
    await page.getByTestId('session-stop').waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focusedOn(page), WAIT).toBe('session-stop-outcome');
    await page.getByTestId('transcript').getByText('Cancelled by').waitFor(WAIT);
    await context.close();
  });

  it('gives the focus to what Stop did when the turn’s end is heard before Stop’s reply', async () => {
    const created = await runningTask('Stop heard first');
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${created.session.id}`);
    await stateOf(page, 'running').waitFor(WAIT);

    // The server stops the turn, and the tab hears it end before the reply to Stop comes.
    await liveRoute(page, '**/api/v1/sessions/*/cancel', async (route) => {
      const response = await route.fetch();
      await stateOf(page, 'idle').waitFor(WAIT);
      await route.fulfill({ response });
    });
    const replied = page.waitForResponse('**/api/v1/sessions/*/cancel', WAIT);
    await page.getByRole('button', { name: 'Stop turn' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('session-stop').waitFor({ state: 'detached', ...WAIT });
    // Not the Delete beside it, where the next Enter would do harm.
    await expect.poll(() => focusedOn(page), WAIT).toBe('session-stop-outcome');
    const stopped = page
      .getByTestId('session-stop-outcome')
      .and(page.locator('[data-outcome="stopped"]'));
    await stopped.waitFor(WAIT);
    await replied;
    await stopped.waitFor(WAIT);
    expect(await focusedOn(page)).toBe('session-stop-outcome');
    await context.close();
  });

  it('gives the focus to the transcript when the turn ends by itself under a Stop not pressed', async () => {
    const created = await runningTask('Ends under Stop');
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${created.session.id}`);
    await stateOf(page, 'running').waitFor(WAIT);
    await page.getByTestId('session-stop').focus();
    host.endTurn(created.session.id);
    await page.getByTestId('session-stop').waitFor({ state: 'detached', ...WAIT });
    // What says the turn ended, not the Delete beside Stop.
    await expect.poll(() => focusedOn(page), WAIT).toBe('transcript');
    await context.close();
  });

  it('says nothing was running anymore when the turn ended before the cancel arrived', async () => {
    const created = await runningTask('Ends first');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    await stateOf(page, 'running').waitFor(WAIT);

    // The turn ends on its own while the cancel is on its way, and the tab hears so first.
    await liveRoute(page, '**/api/v1/sessions/*/cancel', async (route) => {
      host.endTurn(sessionId);
      await stateOf(page, 'idle').waitFor(WAIT);
      await route.continue();
    });
    await page.getByTestId('session-stop').click();
    const outcome = page.getByTestId('session-stop-outcome');
    await outcome.and(page.locator('[data-outcome="not_running"]')).waitFor(WAIT);
    await expect(outcome.textContent()).resolves.toBe(
      'Nothing was running anymore: the turn had already ended.',
    );
    await expect(page.getByTestId('transcript').getByText('Cancelled').count()).resolves.toBe(0);
    await context.close();
  });

  it('says why a Stop failed, leaves the turn running, and stops it when tried again', async () => {
    const created = await runningTask('Stop offline');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    await stateOf(page, 'running').waitFor(WAIT);

    await liveRoute(page, '**/api/v1/sessions/*/cancel', (route) => route.abort('failed'));
    await page.getByTestId('session-stop').click();
    const outcome = page.getByTestId('session-stop-outcome');
    await outcome.and(page.locator('[data-outcome="failed"]')).waitFor(WAIT);
    await expect(outcome.textContent()).resolves.toBe(
      'Not stopped: no reply from the server; check the connection. Try again.',
    );
    await expect(outcome.getAttribute('role')).resolves.toBe('alert');
    await stateOf(page, 'running').waitFor(WAIT);

    await page.unroute('**/api/v1/sessions/*/cancel');
    await page.getByTestId('session-stop').click();
    await outcome.and(page.locator('[data-outcome="stopped"]')).waitFor(WAIT);
    await context.close();
  });

  it('changes nothing when the confirmation is cancelled, by Escape or by Keep', async () => {
    const created = await runningTask('Keep me');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    await stateOf(page, 'running').waitFor(WAIT);
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });

    // By keyboard alone: the confirmation takes the focus on its safe choice, Escape closes it.
    const deleteSession = page.getByTestId('session-delete');
    await deleteSession.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByTestId('delete-confirm');
    await confirm.waitFor(WAIT);
    await expect(confirm.getByRole('group').count()).resolves.toBe(0);
    await expect(
      page.getByRole('group', { name: /Delete this session for everyone/ }).count(),
    ).resolves.toBe(1);
    await expect(deleteSession.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect.poll(() => focusedOn(page)).toBe('delete-confirm-cancel');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focusedOn(page)).toBe('session-delete');

    await page.getByTestId('task-delete').click();
    await expect(confirm.textContent()).resolves.toContain('Keep me');
    await expect(confirm.textContent()).resolves.toContain('every session in it');
    await page.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'detached', ...WAIT });

    expect(deletes).toEqual([]);
    expect(page.url()).toBe(`${world.origin}/sessions/${sessionId}`);
    await stateOf(page, 'running').waitFor(WAIT);
    await page.getByTestId('session-stop').waitFor(WAIT);
    await expect(sessionStatus(sessionId)).resolves.toBe(200);
    host.endTurn(sessionId);
    await context.close();
  });

  it('deletes a session: this tab goes to the task’s other session, a second tab is told', async () => {
    const created = await runningTask('Two sessions');
    const sessionId = created.session.id;
    const other = await world.clarion.store.transaction((tx) =>
      createSession(tx, { taskId: created.task.id, agentProfile: 'demo' }),
    );
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    const watcher = await tab(context, `/sessions/${sessionId}`);

    await page.getByTestId('session-delete').click();
    const confirm = page.getByTestId('delete-confirm');
    await expect(confirm.textContent()).resolves.toContain(
      'Its transcript and queued messages are deleted, and its open questions and requests are closed.',
    );
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });
    // Pressed twice before the page renders again: one delete goes.
    await page.evaluate(`(() => {
      const yes = document.querySelector('[data-testid="delete-confirm-yes"]');
      yes.click();
      yes.click();
    })()`);
    await page.waitForURL(`${world.origin}/sessions/${other.id}`, WAIT);
    expect(deletes).toEqual([`${world.origin}/api/v1/sessions/${sessionId}`]);
    // The other session starts clean: nothing of the delete is carried over.
    await stateOf(page, 'idle').waitFor(WAIT);
    await page.getByTestId('session-delete').waitFor(WAIT);
    await expect(page.getByTestId('delete-confirm').count()).resolves.toBe(0);

    const gone = watcher.getByTestId('session-missing');
    await gone.and(watcher.locator('[data-deleted="session.deleted"]')).waitFor(WAIT);
    await expect(gone.textContent()).resolves.toContain(
      'This session was deleted. Its transcript and queued messages are gone, and its open questions and requests were closed.',
    );
    await expect(watcher.getByTestId('composer-input').count()).resolves.toBe(0);
    await expect(sessionStatus(sessionId)).resolves.toBe(404);
    await expect(sessionStatus(other.id)).resolves.toBe(200);
    await context.close();
  });

  it('deletes a task: this tab goes to the inbox, a second tab is told the task went', async () => {
    const created = await runningTask('Whole task');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    const watcher = await tab(context, `/sessions/${sessionId}`);

    await page.getByTestId('task-delete').click();
    await page.getByTestId('delete-confirm').getByRole('button', { name: 'Delete task' }).click();
    await page.waitForURL(`${world.origin}/`, WAIT);

    const gone = watcher.getByTestId('session-missing');
    await gone.and(watcher.locator('[data-deleted="task.deleted"]')).waitFor(WAIT);
    await expect(gone.textContent()).resolves.toContain(
      'This session’s task was deleted, with every session in it.',
    );
    const tasks = await api<{ tasks: { id: string }[] }>(world, 'GET', '/api/v1/tasks');
    expect(tasks.tasks.map((task) => task.id)).not.toContain(created.task.id);
    await context.close();
  });

  it('says a delete the storage refused leaves the session, and why', async () => {
    const created = await runningTask('Refused');
    const sessionId = created.session.id;
    const context = await signedInBrowser();
    const page = await tab(context, `/sessions/${sessionId}`);
    const watcher = await tab(context, `/sessions/${sessionId}`);

    faults.failNext('delete', 'task_sessions');
    await page.getByTestId('session-delete').click();
    await page.getByTestId('delete-confirm-yes').click();
    const failed = page.getByTestId('delete-failed');
    await failed.waitFor(WAIT);
    await expect(failed.textContent()).resolves.toBe(
      'Not deleted: the storage is unavailable right now. The session stays, with its transcript, queued messages and open questions; its running turn was stopped. Try again shortly.',
    );
    expect(faults.failed).toBe(1);
    expect(page.url()).toBe(`${world.origin}/sessions/${sessionId}`);
    // As the server leaves it: its turn stopped, idle; both tabs still show it.
    await stateOf(page, 'idle').waitFor(WAIT);
    await stateOf(watcher, 'idle').waitFor(WAIT);
    await expect(watcher.getByTestId('session-missing').count()).resolves.toBe(0);
    await expect(sessionStatus(sessionId)).resolves.toBe(200);

    // Kept open to try again; closing it is the person's choice.
    await page.getByTestId('delete-confirm-cancel').click();
    await page.getByTestId('delete-confirm').waitFor({ state: 'detached', ...WAIT });
    await context.close();
  });
});
