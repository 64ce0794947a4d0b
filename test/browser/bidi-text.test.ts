/**
 * Text an agent or a person supplied cannot be made to read as something
 * else: a bidi override (U+202E) in a task title is shown as a visible
 * marker, not obeyed, so `invoice<U+202E>fdp.exe` does not display as
 * "invoiceexe.pdf", in the inbox's question row, on a permission card, in
 * a session's title, on an answer link's page, in the decision log's
 * filters, in a transcript's author names and in a bulk consent's report.
 * Checked in Debian's Chromium by where each character is drawn.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mintAnswerLinks } from '../../src/turns/index.js';
import { api, askingTask, signedInPage, useWorld, type World } from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };
const SPOOF = 'invoice\u202Efdp.exe';
const SPOOFED_NAME = 'Eve\u202Eevil';

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

/** `tail` is drawn left to right after the marker, not reversed. */
async function expectReadsAsWritten(
  page: Page,
  selector: string,
  [head, tail]: readonly [string, string] = ['invoice', 'fdp.exe'],
): Promise<void> {
  const element = page.locator(selector);
  await element.waitFor(WAIT);
  const drawn = await drawnCharacters(page, selector);
  const start = drawn.findIndex((entry) => entry.char === '⟩') + 1;
  const drawnTail = drawn.slice(start);
  expect(drawnTail.map((entry) => entry.char).join('')).toBe(tail);
  const lefts = drawnTail.map((entry) => entry.left);
  expect(lefts).toEqual([...lefts].sort((a, b) => a - b));
  await expect(element.innerText()).resolves.toBe(`${head}⟨U+202E⟩${tail}`);
  const marker = element.getByTestId('bidi-control');
  await expect(marker.getAttribute('title')).resolves.toContain('U+202E');
}

/** The ID of the user-input request `sessionId`'s agent made, once it waits. */
async function requestIdOf(world: World, sessionId: string): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const list = await api<{ requests: { id: string; session_id: string }[] }>(
        world,
        'GET',
        '/api/v1/user-inputs',
      );
      id = list.requests.find((request) => request.session_id === sessionId)?.id;
      return id;
    }, WAIT)
    .toBeDefined();
  return id ?? '';
}

/** A second member of the admin's workspace, with a name that holds an override. */
async function spoofedMember(world: World): Promise<{ id: string; token: string }> {
  const created = await api<{ user: { id: string }; token: string }>(
    world,
    'POST',
    '/api/v1/users',
    { name: SPOOFED_NAME },
  );
  const { workspaces } = await api<{ workspaces: { id: string }[] }>(
    world,
    'GET',
    '/api/v1/workspaces',
  );
  await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
    user_id: created.user.id,
  });
  return { id: created.user.id, token: created.token };
}

/** REST with another person's token. */
async function as(world: World, token: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${world.clarion.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${String(response.status)}`);
}

describe('bidi controls in supplied text, in Chromium', () => {
  const suite = useWorld();

  it('shows a right-to-left override as a marker in the inbox, on a permission card and in a session title', async () => {
    const { world, browser } = suite;
    const asking = await askingTask(world, SPOOF, '/ask');
    const permission = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: SPOOF,
      prompt: '/permission',
    });
    const page = await signedInPage(world, browser, undefined, {
      viewport: { width: 1280, height: 900 },
    });

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
    await page.context().close();
  });

  it('shows it on an answer link’s page, in the decision log’s filters and as a message’s author', async () => {
    const { world, browser } = suite;
    const eve = await spoofedMember(world);
    const asking = await askingTask(world, SPOOF, '/ask Pay 10\u202E.5 now?');
    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    const pendingId =
      pending.bundles.find((bundle) => bundle.session_id === asking.session.id)?.pending_id ?? '';
    const me = await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me');
    const links = await mintAnswerLinks(
      { ...world.clarion.turns, origin: () => world.origin },
      { userId: me.user.id, kind: 'question', itemId: pendingId },
    );

    // A phone with no session opens a link: the task and the question as written.
    const phone = await browser.newContext({ locale: 'en-US' });
    phone.setDefaultTimeout(30_000);
    const linkPage = await phone.newPage();
    await linkPage.goto(links[0]?.url ?? '');
    await expectReadsAsWritten(linkPage, '[data-testid="answer-task"]');
    await expectReadsAsWritten(linkPage, '[data-testid="answer-title"]', ['Pay 10', '.5 now?']);

    // Eve decides elsewhere; the page names her as written.
    await as(world, eve.token, 'POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['hand_written'] }],
    });
    await linkPage.reload();
    const result = linkPage.locator('[data-testid="answer-result"][data-state="answered"]');
    await result.waitFor(WAIT);
    await expect(result.textContent()).resolves.toBe(
      'Already decided: “Hand-written” by Eve⟨U+202E⟩evil (API).',
    );
    await phone.close();

    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/decisions`);
    const taskOption = page.getByTestId('filter-task').locator(`option[value="${asking.task.id}"]`);
    await expect.poll(() => taskOption.textContent(), WAIT).toBe('invoice⟨U+202E⟩fdp.exe');
    const personOption = page.getByTestId('filter-person').locator(`option[value="${eve.id}"]`);
    await expect.poll(() => personOption.textContent(), WAIT).toBe('Eve⟨U+202E⟩evil');

    // Eve writes in the session once its turn is over: her name reads as written.
    await expect
      .poll(async () => {
        const read = await api<{ sessions: { id: string; state: string }[] }>(
          world,
          'GET',
          `/api/v1/tasks/${asking.task.id}/sessions`,
        );
        return read.sessions.find((session) => session.id === asking.session.id)?.state;
      }, WAIT)
      .toBe('idle');
    await as(world, eve.token, 'POST', `/api/v1/sessions/${asking.session.id}/messages`, {
      text: 'from Eve',
      admission_key: 'eve-1',
    });
    await page.goto(`${world.origin}/sessions/${encodeURIComponent(asking.session.id)}`);
    // Only another member's name is supplied text (a <bdi>); "You" is the app's word.
    await expectReadsAsWritten(page, '.message-user .message-author:has(bdi)', ['Eve', 'evil']);
    await page.context().close();
  });

  it('shows it in the report of a bulk consent that failed for one request', async () => {
    const { world, browser } = suite;
    const tasks = await Promise.all(
      [1, 2].map(() =>
        api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
          title: SPOOF,
          prompt: '/permission',
        }),
      ),
    );
    const ids = await Promise.all(tasks.map((task) => requestIdOf(world, task.session.id)));
    const page = await signedInPage(world, browser);
    await liveRoute(page, `**/api/v1/user-inputs/${ids[0] ?? ''}/respond`, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
    );
    for (const id of ids) {
      const row = page.locator(`[data-triage-key="${id}"]`);
      await row.waitFor(WAIT);
      await row.getByTestId('bulk-select').check();
    }
    await page.getByTestId('bulk-allow').click();
    await page.locator('[data-testid="bulk-report"][data-failures="1"]').waitFor(WAIT);
    await expect(page.getByTestId('bulk-failure').innerText()).resolves.toContain(
      'invoice⟨U+202E⟩fdp.exe: ',
    );
    // The failed request's task title, the first isolate in its line.
    await expectReadsAsWritten(page, '[data-testid="bulk-failure"] bdi:first-of-type');
    await page.context().close();
  });
});
