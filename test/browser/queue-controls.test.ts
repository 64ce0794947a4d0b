/**
 * The queue's Clear and Move up / Move down, in Debian's Chromium against a
 * real server, with a second tab that only watches: a reorder done by
 * keyboard keeps focus on the moved message and shows in the other tab; a
 * reorder that loses a race (someone removed a message meanwhile) is
 * refused by the server, refetched and told, and changes nothing; Clear
 * asks first, in the page, and a cancelled confirmation (button or Escape)
 * changes nothing, while a confirmed one empties the queue for everyone; a
 * follow-up the agent takes between the list and the clear is named as not
 * removed, and why. A test-played agent keeps the turn open, so messages
 * stay queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { TestHost } from '../support/test-host.js';
import { overflowsHorizontally, smallTargets } from './support/clarification-pages.js';
import {
  adminSignedInState,
  api,
  ARTIFACTS,
  launchChromium,
  startWorld,
  type CreatedTask,
  type StorageState,
  type World,
} from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };
const AXE = resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

function items(page: Page): Locator {
  return page.locator('[data-testid="queue-item"][data-owner="user"]');
}

async function queuedTexts(page: Page): Promise<string[]> {
  return (await items(page).locator('.queue-text').allTextContents()).map((text) => text.trim());
}

/** Waits until `page` lists exactly `texts`, in that order. */
async function lists(page: Page, texts: string[]): Promise<void> {
  await expect
    .poll(() => queuedTexts(page), { timeout: WAIT.timeout, interval: 100 })
    .toEqual(texts);
}

/** The accessible name of what has focus, or its test ID when it has no label. */
function focused(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(
    `(() => {
      const active = document.activeElement;
      return active?.getAttribute('aria-label') ?? active?.getAttribute('data-testid') ?? null;
    })()`,
  );
}

/** Waits until `probe` holds; at most 30 s. */
async function until(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT.timeout;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} within 30 s`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** The serious and critical findings of axe on what the page shows now. */
async function audit(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate<{ id: string; impact: string | null }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)`,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id);
}

describe('clearing and reordering the session queue', () => {
  let world: World;
  let browser: Browser;
  const host = new TestHost();
  const contexts: BrowserContext[] = [];
  let signedIn: StorageState;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld({ host }), launchChromium()]);
    // Signed in once: a sign-in per test loaded the whole app at / before each session page.
    signedIn = await adminSignedInState(world, browser);
  });

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await world.close();
  });

  /** A session whose agent is busy with its first prompt, holding `texts` queued in order. */
  async function busySession(title: string, texts: string[]): Promise<Record<string, string>> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'first',
    });
    const sessionId = created.session.id;
    const deadline = Date.now() + WAIT.timeout;
    while (!host.prompts.some((p) => p.sessionId === sessionId)) {
      if (Date.now() > deadline) throw new Error('the first prompt within 30 s');
      await new Promise((done) => setTimeout(done, 100));
    }
    const ids: Record<string, string> = { session: sessionId, task: created.task.id };
    for (const [index, text] of texts.entries()) {
      const queued = await api<{ outcome: string; item: { id: string } }>(
        world,
        'POST',
        `/api/v1/sessions/${sessionId}/messages`,
        { text, admission_key: `${title}-${String(index)}` },
      );
      expect(queued.outcome).toBe('queued');
      ids[text] = queued.item.id;
    }
    return ids;
  }

  /** Two tabs of one signed-in browser on the session, both live. */
  async function twoTabs(
    sessionId: string,
    options: Parameters<Browser['newContext']>[0] = {},
  ): Promise<[Page, Page]> {
    const context = await browser.newContext({
      locale: 'en-US',
      storageState: signedIn,
      ...options,
    });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    // The tabs open and load side by side: each load takes seconds on a loaded machine.
    const [acting, watching] = await Promise.all([context.newPage(), context.newPage()]);
    await Promise.all(
      [acting, watching].map(async (page) => {
        await page.goto(`${world.origin}/sessions/${sessionId}`);
        await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
      }),
    );
    // The tab the person uses is the one in front. Chromium draws no frames for a tab behind
    // another, so a click there waited up to 2 s for its element to hold still and a
    // screenshot 4 s; the watching tab is only read, which needs no frames.
    await acting.bringToFront();
    return [acting, watching];
  }

  async function sessionState(created: CreatedTask): Promise<string | undefined> {
    const listed = await api<{ sessions: { id: string; state: string }[] }>(
      world,
      'GET',
      `/api/v1/tasks/${created.task.id}/sessions`,
    );
    return listed.sessions.find((session) => session.id === created.session.id)?.state;
  }

  async function serverQueue(sessionId: string): Promise<string[]> {
    const queue = await api<{ items: { text: string }[] }>(
      world,
      'GET',
      `/api/v1/sessions/${sessionId}/queue`,
    );
    return queue.items.map((item) => item.text);
  }

  it('moves a message by keyboard, keeps focus on it, and the other tab sees each move', async () => {
    const ids = await busySession('Reorder', ['one', 'two', 'three']);
    const [page, watching] = await twoTabs(ids.session ?? '');
    await lists(page, ['one', 'two', 'three']);
    await lists(watching, ['one', 'two', 'three']);

    // Each button names its message; the ends cannot move further.
    await expect(page.getByRole('button', { name: 'Move up: one' }).isDisabled()).resolves.toBe(
      true,
    );
    await expect(page.getByRole('button', { name: 'Move down: three' }).isDisabled()).resolves.toBe(
      true,
    );

    await page.getByRole('button', { name: 'Move down: one' }).focus();
    await page.keyboard.press('Enter');
    await lists(page, ['two', 'one', 'three']);
    await lists(watching, ['two', 'one', 'three']);
    await expect.poll(() => focused(page), WAIT).toBe('Move down: one');

    // At the bottom its Move down is disabled: focus goes to its Move up.
    await page.keyboard.press('Enter');
    await lists(watching, ['two', 'three', 'one']);
    await expect.poll(() => focused(page), WAIT).toBe('Move up: one');

    await page.keyboard.press('Space');
    await lists(watching, ['two', 'one', 'three']);
    await expect.poll(() => focused(page), WAIT).toBe('Move up: one');
    await expect(serverQueue(ids.session ?? '')).resolves.toEqual(['two', 'one', 'three']);
    await expect(page.getByTestId('queue-move-error').count()).resolves.toBe(0);
  });

  it('refetches and says so when a move loses a race, and changes nothing else', async () => {
    const ids = await busySession('Reorder race', ['a', 'b', 'c']);
    const sessionId = ids.session ?? '';
    const [page, watching] = await twoTabs(sessionId);
    await lists(page, ['a', 'b', 'c']);

    // The order leaves the tab naming a, b and c; before it arrives someone removes b.
    let held = 0;
    await liveRoute(page, '**/api/v1/sessions/*/queue/order', async (route) => {
      held += 1;
      if (held === 1) {
        await api(world, 'DELETE', `/api/v1/sessions/${sessionId}/queue/${ids.b ?? ''}`);
      }
      await route.continue();
    });
    await page.getByRole('button', { name: 'Move down: a' }).click();

    const told = page.getByTestId('queue-move-error');
    await told.waitFor(WAIT);
    await expect(told.textContent()).resolves.toContain('the queue changed meanwhile');
    await lists(page, ['a', 'c']);
    await lists(watching, ['a', 'c']);
    await expect(serverQueue(sessionId)).resolves.toEqual(['a', 'c']);
    await expect.poll(() => focused(page), WAIT).toBe('Move down: a');

    // The next move, from the list as it is now, goes through and clears the notice.
    await page.keyboard.press('Enter');
    await lists(watching, ['c', 'a']);
    await told.waitFor({ state: 'detached', ...WAIT });
    expect(held).toBe(2);
  });

  it('asks before clearing; Cancel, Escape and a failed clear change nothing and give focus back', async () => {
    const ids = await busySession('Clear cancelled', ['p', 'q']);
    const sessionId = ids.session ?? '';
    // The app's CSP refuses an injected script; only the audit needs this.
    const [page, watching] = await twoTabs(sessionId, { bypassCSP: true });
    await lists(page, ['p', 'q']);
    await lists(watching, ['p', 'q']);

    const clear = page.getByRole('button', { name: 'Clear queue' });
    const confirm = page.getByRole('group', { name: 'Confirm clearing the queue' });
    await clear.click();
    await confirm.waitFor(WAIT);
    await expect(confirm.getByTestId('queue-clear-messages').textContent()).resolves.toBe(
      'Queued messages removed: 2',
    );
    await expect(confirm.getByTestId('queue-clear-follow-ups').count()).resolves.toBe(0);
    await expect.poll(() => focused(page), WAIT).toBe('queue-clear-cancel');
    await expect(audit(page)).resolves.toEqual([]);

    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focused(page), WAIT).toBe('queue-clear');

    await page.keyboard.press('Enter');
    await confirm.waitFor(WAIT);
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached', ...WAIT });
    await expect.poll(() => focused(page), WAIT).toBe('queue-clear');

    // Not the first queued message's button: Clear, to try again, with the failure said.
    await liveRoute(page, `**/api/v1/sessions/${sessionId}/queue`, (route) =>
      route.request().method() === 'DELETE' ? route.abort() : route.continue(),
    );
    await page.keyboard.press('Enter');
    await confirm.getByTestId('queue-clear-yes').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('queue-clear-error').waitFor(WAIT);
    await expect.poll(() => focused(page), WAIT).toBe('queue-clear');

    await expect(serverQueue(sessionId)).resolves.toEqual(['p', 'q']);
    await lists(page, ['p', 'q']);
    await lists(watching, ['p', 'q']);
  });

  it('clears the queue once confirmed, for every tab, and nothing of it is sent', async () => {
    const ids = await busySession('Clear confirmed', ['x', 'y']);
    const sessionId = ids.session ?? '';
    const [page, watching] = await twoTabs(sessionId);
    await lists(page, ['x', 'y']);
    await lists(watching, ['x', 'y']);

    await page.getByRole('button', { name: 'Clear queue' }).click();
    await page.getByRole('button', { name: 'Remove all' }).click();
    await page.getByTestId('queue').waitFor({ state: 'detached', ...WAIT });
    await watching.getByTestId('queue').waitFor({ state: 'detached', ...WAIT });
    await expect(serverQueue(sessionId)).resolves.toEqual([]);

    // The turn ends with nothing queued: the agent is not prompted again.
    const prompts = host.prompts.filter((p) => p.sessionId === sessionId).length;
    host.endTurn(sessionId);
    await expect
      .poll(
        () =>
          api<{ sessions: { id: string; state: string }[] }>(
            world,
            'GET',
            `/api/v1/tasks/${ids.task ?? ''}/sessions`,
          ).then((reply) => reply.sessions.find((session) => session.id === sessionId)?.state),
        WAIT,
      )
      .toBe('idle');
    expect(host.prompts.filter((p) => p.sessionId === sessionId)).toHaveLength(prompts);
  });

  it('names a follow-up the agent took between the list and the clear, and why it stayed', async () => {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Clear raced',
      prompt: 'first',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () => host.prompts.some((p) => p.sessionId === sessionId));
    const asked = world.clarion.turns.userInputs.request({
      kind: 'action',
      sessionId,
      taskId: created.task.id,
      title: 'Rotate the key',
      instructions: 'Open the console and rotate it.',
    });
    if (!asked.ok) throw new Error('the action request was refused');
    // The turn ends with the action open; a person's message keeps the agent busy again.
    host.endTurn(sessionId);
    await until('the session to idle', async () => (await sessionState(created)) === 'idle');
    await api(world, 'POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'meanwhile, lint',
      admission_key: 'clear-raced-busy',
    });
    await until('the busy prompt', () =>
      host.prompts.some((p) => p.sessionId === sessionId && p.text === 'meanwhile, lint'),
    );
    const [page] = await twoTabs(sessionId);
    await page
      .locator(`[data-testid="user-input-card"][data-request-id="${asked.id}"]`)
      .getByTestId('action-done')
      .click();
    const followUp = page.locator(`[data-testid="queue-item"][data-item-id="${asked.id}"]`);
    await followUp.waitFor(WAIT);
    const sentFollowUp = 'Continue. I have completed: Rotate the key';

    // The clear leaves the page after the person confirmed the list; before it reaches the
    // server, the turn ends and the agent is given the follow-up.
    await liveRoute(page, '**/api/v1/sessions/*/queue', async (route) => {
      if (route.request().method() !== 'DELETE') return route.continue();
      host.endTurn(sessionId);
      await until('the follow-up sent', () =>
        host.prompts.some((p) => p.sessionId === sessionId && p.text === sentFollowUp),
      );
      return route.continue();
    });
    await page.getByRole('button', { name: 'Clear queue' }).click();
    await expect(page.getByTestId('queue-clear-follow-ups').textContent()).resolves.toContain('1');
    await page.getByRole('button', { name: 'Remove all' }).click();

    const miss = page.getByTestId('queue-clear-miss');
    await miss.waitFor(WAIT);
    await expect(miss.getAttribute('data-item-id')).resolves.toBe(asked.id);
    await expect(miss.getAttribute('data-reason')).resolves.toBe('taken');
    await expect(miss.textContent()).resolves.toBe(
      `“${sentFollowUp}” was not removed: it had left the queue before the clear reached it, most likely to the agent.`,
    );
    await expect(page.getByTestId('queue-clear-error').count()).resolves.toBe(0);
    expect(
      host.prompts.filter((p) => p.sessionId === sessionId && p.text === sentFollowUp),
    ).toHaveLength(1);
  });

  it('fits a phone: no sideways scroll, 44 px targets, the confirmation included', async () => {
    const long = `${'A long queued instruction that goes on and on '.repeat(4)}end`;
    const ids = await busySession('Queue on a phone', [long, 'short']);
    const [page] = await twoTabs(ids.session ?? '', {
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 2,
    });
    await lists(page, [long, 'short']);
    await page.getByRole('button', { name: 'Clear queue' }).click();
    await page.getByTestId('queue-clear-confirm').waitFor(WAIT);
    await page.getByTestId('queue').screenshot({ path: `${ARTIFACTS}/queue-controls-phone.png` });
    await expect(overflowsHorizontally(page)).resolves.toBe(false);
    await expect(smallTargets(page, 'queue')).resolves.toEqual([]);
  });
});
