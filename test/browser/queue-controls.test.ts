/**
 * The queue's Move up and Move down, in Debian's Chromium against a real
 * server, with a second tab that only watches: a reorder done by keyboard
 * keeps focus on the moved message and shows in the other tab; a reorder
 * that loses a race (someone removed a message meanwhile) is refused by the
 * server, refetched and told, and changes nothing. A test-played agent keeps
 * the turn open, so messages stay queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { TestHost } from '../support/test-host.js';
import {
  api,
  launchChromium,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';

const WAIT = { timeout: 30_000 };

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

describe('reordering the session queue', () => {
  let world: World;
  let browser: Browser;
  const host = new TestHost();
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld({ host }), launchChromium()]);
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
  async function twoTabs(sessionId: string): Promise<[Page, Page]> {
    const link = new URL(
      (await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', {})).url,
    );
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    const acting = await context.newPage();
    await acting.goto(`${world.origin}${link.pathname}${link.search}`);
    await acting.waitForURL(`${world.origin}/`);
    const watching = await context.newPage();
    for (const page of [acting, watching]) {
      await page.goto(`${world.origin}/sessions/${sessionId}`);
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    }
    return [acting, watching];
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
    await page.route('**/api/v1/sessions/*/queue/order', async (route) => {
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
});
