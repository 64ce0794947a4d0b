/**
 * The session queue as a tab that only watches sees it, in Debian's
 * Chromium against a real server: every change someone else makes (a
 * message queued behind the busy agent, an edit, a reorder, a removal, the
 * next message taken when the turn ends) shows without a reload, because
 * each says `queue.changed` at the session's revision. The tab's own queued
 * send shows the same way. An edit under way whose message leaves the queue
 * (removed by someone, or sent) is told and lands in the composer. At
 * 320 px (a 1280 px window at 400 %) the edit box and the composer take
 * their own row rather than be squeezed beside their buttons. A
 * test-played agent keeps the turn open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { TestHost } from '../support/test-host.js';
import { MAX_MESSAGE_CHARS } from '../../src/wire/limits.js';
import { en } from '../../web/src/i18n/en.js';
import {
  api,
  launchChromium,
  signedInPage,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { holdFirst } from './support/clarification-pages.js';

const WAIT = { timeout: 30_000 };

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (probe()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

function items(page: Page): Locator {
  return page.locator('[data-testid="queue-item"][data-owner="user"]');
}

async function queuedTexts(page: Page): Promise<string[]> {
  return (await items(page).locator('.queue-text').allTextContents()).map((text) => text.trim());
}

/** Waits until the watching tab lists exactly `texts`, in that order. */
async function lists(page: Page, texts: string[]): Promise<void> {
  await expect
    .poll(() => queuedTexts(page), { timeout: WAIT.timeout, interval: 100 })
    .toEqual(texts);
}

describe('the session queue seen from another tab', () => {
  let world: World;
  let browser: Browser;
  const host = new TestHost();

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld({ host }), launchChromium()]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  /** A session whose first prompt the agent is working on, with `texts` queued behind it. */
  async function busyWithQueue(title: string, texts: readonly string[]): Promise<string> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'first',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () => host.prompts.some((p) => p.sessionId === sessionId));
    for (const text of texts) {
      await api(world, 'POST', `/api/v1/sessions/${sessionId}/messages`, {
        text,
        admission_key: `${title}: ${text}`,
      });
    }
    return sessionId;
  }

  it('shows each queue change as it happens, and the queue drained when the turn ends', async () => {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Queue watched',
      prompt: 'first',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () => host.prompts.some((p) => p.sessionId === sessionId));

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await lists(page, []);

    const queue = async (text: string): Promise<string> => {
      const queued = await api<{ outcome: string; item: { id: string } }>(
        world,
        'POST',
        `/api/v1/sessions/${sessionId}/messages`,
        { text, admission_key: `k-${text}` },
      );
      expect(queued.outcome).toBe('queued');
      return queued.item.id;
    };
    const second = await queue('second');
    await lists(page, ['second']);
    const third = await queue('third');
    await lists(page, ['second', 'third']);

    await api(world, 'PATCH', `/api/v1/sessions/${sessionId}/queue/${second}`, {
      text: 'second, edited',
      base_text: 'second',
    });
    await lists(page, ['second, edited', 'third']);
    await api(world, 'PUT', `/api/v1/sessions/${sessionId}/queue/order`, { ids: [third, second] });
    await lists(page, ['third', 'second, edited']);
    await api(world, 'DELETE', `/api/v1/sessions/${sessionId}/queue/${third}`);
    await lists(page, ['second, edited']);

    // This tab's own send while the agent is busy.
    await page.getByTestId('composer-input').fill('fourth');
    await page.getByTestId('composer-send').click();
    await lists(page, ['second, edited', 'fourth']);
    const queuedNote = page.getByText(en.composer.queued);
    await queuedNote.waitFor(WAIT);

    host.endTurn(sessionId);
    await until('the edited message to run', () =>
      host.prompts.some((p) => p.text === 'second, edited'),
    );
    await lists(page, ['fourth']);
    // Its own message still waits: the composer still says it is queued.
    await expect(queuedNote.isVisible()).resolves.toBe(true);
    host.endTurn(sessionId);
    await until('the own send to run', () => host.prompts.some((p) => p.text === 'fourth'));
    await page.getByTestId('queue').waitFor({ state: 'detached', ...WAIT });
    // It ran: saying it is queued would be stale.
    await queuedNote.waitFor({ state: 'detached', ...WAIT });
    await page.context().close();
  });

  it('keeps the keyboard in the queue as its messages are removed, then in the composer', async () => {
    const sessionId = await busyWithQueue('Queue removed by keyboard', ['one', 'two']);
    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await lists(page, ['one', 'two']);
    const focused = () =>
      page.evaluate<string>(
        `(() => { const a = document.activeElement; return a === document.body ? 'body' : ` +
          `(a?.closest('[data-testid="queue-item"]')?.querySelector('.queue-text')?.textContent ?? '') + ` +
          `'/' + (a?.getAttribute('data-testid') ?? a?.tagName); })()`,
      );

    await items(page).first().getByTestId('queue-remove').focus();
    await page.keyboard.press('Enter');
    await lists(page, ['two']);
    // The removed row took its buttons along: the focus is on the next row's first usable one.
    await expect.poll(focused, WAIT).toBe('two/queue-edit');
    await items(page).first().getByTestId('queue-remove').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('queue').waitFor({ state: 'detached', ...WAIT });
    await expect.poll(focused, WAIT).toBe('/composer-input');
    host.endTurn(sessionId);
    await page.context().close();
  });

  it('keeps the keyboard on Clear’s confirmation while it clears, then in the composer', async () => {
    const sessionId = await busyWithQueue('Queue cleared by keyboard', ['one']);
    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await lists(page, ['one']);
    const held = await holdFirst(page, '**/api/v1/sessions/*/queue', 'DELETE');
    const focused = () =>
      page.evaluate<string>(`document.activeElement?.getAttribute('data-testid') ?? 'body'`);

    await page.getByTestId('queue-clear').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('queue-clear-yes').focus();
    await page.keyboard.press('Enter');
    await held.arrived;
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done)))');
    await expect(focused()).resolves.toBe('queue-clear-yes');
    held.release();
    await page.getByTestId('queue').waitFor({ state: 'detached', ...WAIT });
    await expect.poll(focused, WAIT).toBe('composer-input');
    host.endTurn(sessionId);
    await page.context().close();
  });

  it('tells the person editing when the message left the queue, and keeps their edit', async () => {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Queue edit lost',
      prompt: 'first',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () => host.prompts.some((p) => p.sessionId === sessionId));
    const queue = async (text: string): Promise<string> => {
      const queued = await api<{ item: { id: string } }>(
        world,
        'POST',
        `/api/v1/sessions/${sessionId}/messages`,
        { text, admission_key: `lost-${text}` },
      );
      return queued.item.id;
    };
    const one = await queue('one');
    await queue('two');

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await lists(page, ['one', 'two']);
    const composer = page.getByTestId('composer-input');
    await composer.fill('already typed');

    // Someone else removes the message being edited.
    await items(page).first().getByTestId('queue-edit').click();
    await page.getByTestId('queue-edit-input').fill('one, with an important correction');
    await api(world, 'DELETE', `/api/v1/sessions/${sessionId}/queue/${one}`);
    await page.getByTestId('queue-edit-lost').waitFor(WAIT);
    await expect(page.getByTestId('queue-edit-input').count()).resolves.toBe(0);
    await expect
      .poll(() => composer.inputValue(), WAIT)
      .toBe('already typed\n\none, with an important correction');

    // The turn ends and the message being edited is sent: the edit is kept the same way.
    await composer.fill('');
    await items(page).first().getByTestId('queue-edit').click();
    await page.getByTestId('queue-edit-input').fill('two, corrected too late');
    host.endTurn(sessionId);
    await until('the queued message to run', () => host.prompts.some((p) => p.text === 'two'));
    await expect.poll(() => composer.inputValue(), WAIT).toBe('two, corrected too late');
    await page.getByTestId('queue-edit-lost').waitFor(WAIT);
    await page.context().close();
  });

  it('gives the edit box and the composer a row of their own at 320 px, in German', async () => {
    const sessionId = await busyWithQueue('Queue at 400 %', ['queued']);
    const page = await signedInPage(world, browser, undefined, {
      viewport: { width: 320, height: 640 },
      locale: 'de-DE',
    });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await lists(page, ['queued']);
    await items(page).first().getByTestId('queue-edit').click();
    // Squeezed beside Save and Cancel the edit box was 30 px wide, a letter a line; the composer
    // beside "Nachricht senden", 115 px.
    for (const box of ['queue-edit-input', 'composer-input']) {
      const width = (await page.getByTestId(box).boundingBox())?.width ?? 0;
      expect(width, box).toBeGreaterThan(240);
    }
    host.endTurn(sessionId);
    await page.context().close();
  });

  it('says why an edit too long to keep was not saved, rather than that it may have started', async () => {
    const sessionId = await busyWithQueue('Queue edit too long', ['queued']);

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await lists(page, ['queued']);
    await items(page).first().getByTestId('queue-edit').click();
    await page.getByTestId('queue-edit-input').fill('x'.repeat(MAX_MESSAGE_CHARS + 1));
    await page.getByTestId('queue-save').click();
    await expect(page.getByTestId('queue-error').textContent(WAIT)).resolves.toBe(
      en.userInput.queue.saveInvalid.replace(
        '{{problem}}',
        en.composer.tooLong.replace('{{max}}', String(MAX_MESSAGE_CHARS)),
      ),
    );
    // Nothing changed, and the edit is still open to be corrected.
    await expect(page.getByTestId('queue-edit-input').count()).resolves.toBe(1);
    const queue = await api<{ items: { text: string }[] }>(
      world,
      'GET',
      `/api/v1/sessions/${sessionId}/queue`,
    );
    expect(queue.items.map((item) => item.text)).toEqual(['queued']);
    host.endTurn(sessionId);
    await page.context().close();
  });
});
