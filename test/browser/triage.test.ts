/**
 * The inbox as a triage tool and the decision log's filters (issue 15), in
 * Debian's Chromium against a real server and the demo agent: each item's
 * kind, task, agent and age; expiring items first; a one-question bundle, a
 * consent and an action answered from the list; J/K/Enter; "Next waiting
 * item"; the favicon badge following the count; two consents allowed at once
 * and a per-item failure report; the decision log filtered and exported.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { UserInputView } from '../../src/user-input/index.js';
import { agentReplies, option, useSuite, WAIT } from './support/clarification-pages.js';
import { api, askingTask, type CreatedTask, type World } from './support/harness.js';
import { liveRoute } from './support/live-route.js';

interface Decision {
  message_id: string;
  session_id: string;
  kind: string;
  outcome: string;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

function startTask(world: World, title: string, prompt: string): Promise<CreatedTask> {
  return api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt });
}

function requestOf(world: World, sessionId: string): Promise<UserInputView> {
  return until('no user-input request', async () => {
    const list = await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs');
    return list.requests.find((request) => request.session_id === sessionId);
  });
}

async function pendingIdOf(world: World, sessionId: string): Promise<string> {
  const list = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
    world,
    'GET',
    '/api/v1/pending',
  );
  const found = list.bundles.find((bundle) => bundle.session_id === sessionId);
  if (!found) throw new Error('no pending bundle');
  return found.pending_id;
}

/** One attribute of every element `selector` matches, in document order, read at one instant. */
async function attributes(page: Page, selector: string, name: string): Promise<(string | null)[]> {
  const values: unknown = await page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((element) => element.getAttribute(${JSON.stringify(name)}))`,
  );
  return values as (string | null)[];
}

function triageKeys(page: Page): Promise<(string | null)[]> {
  return attributes(page, '[data-triage-key]', 'data-triage-key');
}

async function icon(page: Page): Promise<{ href: string | null; count: string | null }> {
  const link = page.locator('link[rel="icon"]');
  return { href: await link.getAttribute('href'), count: await link.getAttribute('data-count') };
}

function focusedKey(page: Page): Promise<unknown> {
  return page.evaluate(
    "document.activeElement && document.activeElement.getAttribute('data-triage-key')",
  );
}

describe('the inbox as a triage tool, in Chromium', () => {
  const suite = useSuite();

  it('shows kind, task, agent and age, expiring first; answers a question, a consent and an action in place; the favicon badge follows the count', async () => {
    const { world } = suite;
    const { context, page } = await suite.desktop();
    const question = await askingTask(world, 'Inline question', '/ask');
    const questionKey = await pendingIdOf(world, question.session.id);
    const consentTask = await startTask(world, 'Inline consent', '/permission');
    const consent = await requestOf(world, consentTask.session.id);
    const actionTask = await startTask(world, 'Inline action', '/action');
    const action = await requestOf(world, actionTask.session.id);

    await page.goto(`${world.origin}/`);
    const row = page.locator(`[data-triage-key="${questionKey}"]`);
    await row.waitFor(WAIT);
    await page.locator(`[data-triage-key="${action.id}"]`).waitFor(WAIT);
    await page.locator(`[data-triage-key="${consent.id}"]`).waitFor(WAIT);
    await expect(row.getByTestId('triage-kind').getAttribute('data-kind')).resolves.toBe(
      'question',
    );
    await expect(row.textContent()).resolves.toContain('Inline question');
    await expect(row.getByTestId('triage-agent').textContent()).resolves.toBe('Agent: demo');
    await expect(row.locator('time').first().getAttribute('datetime')).resolves.toMatch(
      /^\d{4}-\d{2}-\d{2}T/,
    );
    const kinds = await attributes(page, '[data-triage-key]', 'data-kind');
    expect(kinds.sort()).toEqual(['action', 'permission', 'question']);
    // The consent and the action have deadlines; the question has none, so it comes last.
    expect((await triageKeys(page)).at(-1)).toBe(questionKey);

    await expect.poll(() => page.title(), WAIT).toBe('(3) Clarion');
    await expect.poll(async () => (await icon(page)).count, WAIT).toBe('3');
    const three = await icon(page);
    expect(three.href).toMatch(/^data:image\/png;base64,/);
    await suite.shoot(page, 'triage-inbox');

    // One question: no "Questions: 1" under a prompt that is the one question.
    await expect(row.getByTestId('inbox-meta').count()).resolves.toBe(0);
    // Each choice says what it means, as in the question's own view: no hover needed.
    const generated = row.getByTestId('inline-option').filter({ hasText: 'Generated' });
    await expect(generated.locator('.option-description').textContent()).resolves.toBe(
      'Generate it from the defaults in the code.',
    );
    await generated.click();
    await row.getByTestId('send-now').click();
    await row.locator('[data-testid="clarification-banner"][data-state="resolved"]').waitFor(WAIT);
    await until('the agent got the inline answer', async () =>
      (await agentReplies(world, question.session.id)).some((reply) =>
        reply.includes('Answer to q1: "Generated"'),
      )
        ? true
        : undefined,
    );
    await expect.poll(async () => (await icon(page)).count, WAIT).toBe('2');
    expect((await icon(page)).href).not.toBe(three.href);
    await expect.poll(() => page.title(), WAIT).toBe('(2) Clarion');

    const consentCard = page.locator(
      `[data-testid="user-input-card"][data-request-id="${consent.id}"]`,
    );
    await consentCard.locator('[data-option-id="allow-once"]').click();
    await page
      .locator(`[data-testid="user-input-card"][data-request-id="${consent.id}"]`)
      .and(page.locator('[data-outcome="allowed"]'))
      .waitFor(WAIT);
    const actionCard = page.locator(
      `[data-testid="user-input-card"][data-request-id="${action.id}"]`,
    );
    await actionCard.getByTestId('action-done').click();
    await page
      .locator(`[data-testid="user-input-card"][data-request-id="${action.id}"]`)
      .and(page.locator('[data-outcome^="follow_up"]'))
      .first()
      .waitFor(WAIT);
    await expect.poll(async () => (await icon(page)).count, WAIT).toBe('0');
    expect((await icon(page)).href).toBe('/favicon-32.png');
    await expect.poll(() => page.title(), WAIT).toBe('Clarion');
    const log = await api<{ decisions: Decision[] }>(world, 'GET', '/api/v1/decisions?limit=200');
    expect(log.decisions.map((entry) => `${entry.kind}:${entry.session_id}`)).toEqual(
      expect.arrayContaining([
        `question:${question.session.id}`,
        `consent:${consentTask.session.id}`,
      ]),
    );
    await context.close();
  });

  it('moves with J and K (visible focus), opens with Enter, and takes you on with "Next waiting item"', async () => {
    const { world } = suite;
    const { context, page } = await suite.desktop();
    const first = await askingTask(world, 'Keys first', '/ask');
    const second = await askingTask(world, 'Keys second', '/ask');
    const firstKey = await pendingIdOf(world, first.session.id);
    const secondKey = await pendingIdOf(world, second.session.id);
    await page.goto(`${world.origin}/`);
    await page.locator(`[data-triage-key="${secondKey}"]`).waitFor(WAIT);
    // Oldest first: the first task's question leads.
    expect(await triageKeys(page)).toEqual([firstKey, secondKey]);

    await page.keyboard.press('j');
    await expect.poll(() => focusedKey(page)).toBe(firstKey);
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).toBe('solid');
    await page.keyboard.press('j');
    await expect.poll(() => focusedKey(page)).toBe(secondKey);
    await page.keyboard.press('j');
    await expect.poll(() => focusedKey(page)).toBe(secondKey);
    await page.keyboard.press('k');
    await expect.poll(() => focusedKey(page)).toBe(firstKey);
    await suite.shoot(page, 'triage-focus');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/sessions/${first.session.id}`);

    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await expect(page.getByTestId('next-waiting-item').count()).resolves.toBe(0);
    await option(page, 'Generated').click();
    await page.getByTestId('send-now').click();
    const next = page.getByTestId('next-waiting-item');
    await next.waitFor(WAIT);
    await expect(next.getAttribute('data-session-id')).resolves.toBe(second.session.id);
    await expect(next.textContent()).resolves.toContain('Keys second');
    await suite.shoot(page, 'triage-next-waiting');
    await next.click();
    await page.waitForURL(`**/sessions/${second.session.id}`);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    await option(page, 'Hand-written').click();
    await page.getByTestId('send-now').click();
    await page.getByTestId('next-waiting-none').waitFor(WAIT);
    await context.close();
  });

  it('gives the J and K hint where there is a keyboard, not on a touch screen', async () => {
    const { world } = suite;
    await askingTask(world, 'Hint', '/ask');
    const desktop = await suite.desktop();
    await desktop.page.goto(`${world.origin}/`);
    await desktop.page.getByTestId('triage-hint').waitFor(WAIT);
    await desktop.context.close();

    const phone = await suite.phone();
    await phone.page.goto(`${world.origin}/`);
    await phone.page.getByTestId('inbox-item').filter({ hasText: 'Hint' }).waitFor(WAIT);
    await expect(phone.page.getByTestId('triage-hint').count()).resolves.toBe(0);
    await phone.context.close();
  });

  it('allows two consents of one tool at once, and reports a request that failed', async () => {
    const { world } = suite;
    const { context, page } = await suite.desktop();
    const tasks = await Promise.all(
      ['Bulk one', 'Bulk two'].map((title) => startTask(world, title, '/permission')),
    );
    const requests = await Promise.all(tasks.map((task) => requestOf(world, task.session.id)));
    await page.goto(`${world.origin}/`);
    for (const request of requests) {
      const row = page.locator(`[data-triage-key="${request.id}"]`);
      await row.waitFor(WAIT);
      await row.getByTestId('bulk-select').check();
    }
    await expect(page.getByTestId('bulk-allow').textContent()).resolves.toBe('Allow 2');
    await suite.shoot(page, 'triage-bulk');
    await page.getByTestId('bulk-allow').click();
    await page.locator('[data-testid="bulk-report"][data-failures="0"]').waitFor(WAIT);
    const live = await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs');
    expect(live.requests.filter((request) => requests.some((r) => r.id === request.id))).toEqual(
      [],
    );
    const allowed = await until('both consents in the decision log', async () => {
      const log = await api<{ decisions: Decision[] }>(
        world,
        'GET',
        '/api/v1/decisions?kind=consent&limit=200',
      );
      const ours = log.decisions.filter((entry) =>
        tasks.some((task) => task.session.id === entry.session_id),
      );
      return ours.length === 2 ? ours : undefined;
    });
    expect(allowed.map((entry) => entry.outcome)).toEqual(['allowed', 'allowed']);

    // One of the next two fails on the way: the other is decided, the failure named.
    const more = await Promise.all(
      ['Bulk three', 'Bulk four'].map((title) => startTask(world, title, '/permission')),
    );
    const moreRequests = await Promise.all(more.map((task) => requestOf(world, task.session.id)));
    const [failing, passing] = moreRequests;
    if (!failing || !passing) throw new Error('two requests expected');
    await liveRoute(page, `**/api/v1/user-inputs/${failing.id}/respond`, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
    );
    for (const request of moreRequests) {
      const row = page.locator(`[data-triage-key="${request.id}"]`);
      await row.waitFor(WAIT);
      await row.getByTestId('bulk-select').check();
    }
    await page.getByTestId('bulk-allow').click();
    const report = page.locator('[data-testid="bulk-report"][data-failures="1"]');
    await report.waitFor(WAIT);
    await expect(report.getByTestId('bulk-failure').getAttribute('data-request-id')).resolves.toBe(
      failing.id,
    );
    await expect(report.textContent()).resolves.toContain('Bulk three');
    await suite.shoot(page, 'triage-bulk-report');
    const after = await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs');
    expect(after.requests.map((request) => request.id)).toContain(failing.id);
    expect(after.requests.map((request) => request.id)).not.toContain(passing.id);
    await context.close();
  });

  it('filters the decision log by kind and task, and exports the filtered log as CSV', async () => {
    const { world } = suite;
    const { context, page } = await suite.desktop();
    const consents = await api<{ decisions: Decision[] }>(
      world,
      'GET',
      '/api/v1/decisions?kind=consent&limit=200',
    );
    expect(consents.decisions.length).toBeGreaterThanOrEqual(3);
    await page.goto(`${world.origin}/decisions`);
    await page.getByTestId('decision-item').first().waitFor(WAIT);
    await page.getByTestId('filter-kind').selectOption('consent');
    await expect
      .poll(() => attributes(page, '[data-testid="decision-item"]', 'data-kind'), WAIT)
      .toEqual(consents.decisions.map(() => 'consent'));
    await suite.shoot(page, 'decision-log-filtered');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('decisions-export').click(),
    ]);
    expect(download.suggestedFilename()).toBe('clarion-decisions.csv');
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    // Starts with the byte order mark Excel needs to read non-ASCII names as UTF-8.
    expect(lines[0]).toMatch(/^\uFEFFdecided_at,kind,outcome,/);
    // Counted from the end: a title or reason before it may hold a quoted comma.
    const header = (lines[0] ?? '').split(',');
    const fromEnd = header.indexOf('message_id') - header.length;
    expect(fromEnd).toBeLessThan(0);
    expect(lines.slice(1).map((line) => line.split(',').at(fromEnd))).toEqual(
      consents.decisions.map((entry) => entry.message_id),
    );

    const tasks = await api<{ tasks: { id: string; title: string }[] }>(
      world,
      'GET',
      '/api/v1/tasks',
    );
    const inline = tasks.tasks.find((task) => task.title === 'Inline question');
    if (!inline) throw new Error('the first test’s task is missing');
    await page.getByTestId('filter-kind').selectOption('');
    await page.getByTestId('filter-task').selectOption(inline.id);
    await expect
      .poll(() => attributes(page, '[data-testid="decision-item"]', 'data-kind'), WAIT)
      .toEqual(['question']);
    await context.close();
  });

  it('keeps a deleted task’s decisions in the log, marked, with nothing to open', async () => {
    const { world } = suite;
    const tasks = await api<{ tasks: { id: string; title: string }[] }>(
      world,
      'GET',
      '/api/v1/tasks',
    );
    const inline = tasks.tasks.find((task) => task.title === 'Inline question');
    if (!inline) throw new Error('the first test’s task is missing');
    await api(world, 'DELETE', `/api/v1/tasks/${inline.id}`);
    const { context, page } = await suite.desktop();
    await page.goto(`${world.origin}/decisions`);
    await page.getByTestId('filter-kind').selectOption('question');
    const kept = page.getByTestId('decision-session-deleted');
    await kept.first().waitFor(WAIT);
    expect(await kept.allTextContents()).toEqual(['Inline question (session deleted)']);
    await expect
      .poll(() =>
        page.locator('[data-testid="decision-item"] a', { hasText: 'Inline question' }).count(),
      )
      .toBe(0);
    await context.close();
  });
});
