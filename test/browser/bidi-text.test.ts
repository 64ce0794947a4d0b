/**
 * Text an agent or a person supplied cannot be made to read as something
 * else: a bidi override (U+202E) in a task title is shown as a visible
 * marker, not obeyed, so `invoice<U+202E>fdp.exe` does not display as
 * "invoiceexe.pdf", in the inbox's question row, on a permission card and in
 * a session's title.
 * Checked in Debian's Chromium by where each character is drawn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, askingTask, launchChromium, startWorld, type World } from './support/harness.js';

const WAIT = { timeout: 30_000 };
const SPOOF = 'invoice\u202Efdp.exe';

/** The left edge of every drawn character under `element`, in DOM order (run in the page). */
const DRAWN_CHARACTERS = `(root) => {
  const drawn = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    for (let index = 0; index < text.length; index++) {
      const range = document.createRange();
      range.setStart(node, index);
      range.setEnd(node, index + 1);
      const box = range.getBoundingClientRect();
      if (box.width > 0) drawn.push({ char: text.charAt(index), left: box.left });
    }
  }
  return drawn;
}`;

async function drawnCharacters(page: Page, selector: string) {
  const drawn: unknown = await page.evaluate(
    `(${DRAWN_CHARACTERS})(document.querySelector(${JSON.stringify(selector)}))`,
  );
  return drawn as { char: string; left: number }[];
}

/** "fdp.exe" is drawn left to right after the marker, not reversed. */
async function expectReadsAsWritten(page: Page, selector: string): Promise<void> {
  const element = page.locator(selector);
  await element.waitFor(WAIT);
  const drawn = await drawnCharacters(page, selector);
  const start = drawn.findIndex((entry) => entry.char === 'f');
  const tail = drawn.slice(start);
  expect(tail.map((entry) => entry.char).join('')).toBe('fdp.exe');
  const lefts = tail.map((entry) => entry.left);
  expect(lefts).toEqual([...lefts].sort((a, b) => a - b));
  await expect(element.innerText()).resolves.toBe('invoice⟨U+202E⟩fdp.exe');
  const marker = element.getByTestId('bidi-control');
  await expect(marker.getAttribute('title')).resolves.toContain('U+202E');
}

describe('bidi controls in supplied text, in Chromium', () => {
  let world: World;
  let browser: Browser;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  it('shows a right-to-left override as a marker in the inbox, on a permission card and in a session title', async () => {
    const asking = await askingTask(world, SPOOF, '/ask');
    const permission = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: SPOOF,
      prompt: '/permission',
    });
    const context = await browser.newContext({
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);

    await expectReadsAsWritten(
      page,
      `[data-testid="inbox-item"][data-session-id="${asking.session.id}"] .inbox-task`,
    );
    await expectReadsAsWritten(
      page,
      `[data-testid="inbox-user-input"][data-session-id="${permission.session.id}"] .user-input-task`,
    );
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(asking.session.id)}`);
    // The page's own title shows until the task is read.
    await page.locator('h1.page-title').getByTestId('bidi-control').waitFor(WAIT);
    await expectReadsAsWritten(page, 'h1.page-title');
    await context.close();
  });
});
