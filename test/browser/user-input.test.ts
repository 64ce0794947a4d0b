/**
 * Consent and action cards in Debian's Chromium against a real server: the
 * demo agent asks permission over ACP and asks for an action over MCP; the
 * person answers in the session view or the inbox, on a desktop or a phone.
 * Also the subscribe-then-snapshot start-up (a request created while the
 * page loads, a snapshot that raced an answer, two tabs) and the session
 * queue with a follow-up, where a test-played agent makes the busy window
 * exact. Screenshots go to dist/test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import type { UserInputView } from '../../src/user-input/index.js';
import { UNDO_WINDOW_MS } from '../../web/src/model/respond.js';
import { TestHost } from '../support/test-host.js';
import {
  api,
  ARTIFACTS,
  namedOptionsConsent,
  launchChromium,
  signedInPage,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { pauseClock, recordRequests, settleRequests } from './support/clarification-pages.js';
import { scriptOutage, scriptRoute } from './support/scripted-route.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };
const RESPOND = '**/api/v1/user-inputs/*/respond';
const SNAPSHOT = '**/api/v1/user-inputs';
const FOLLOW_UP_DONE = 'Continue. I have completed: Connect the staging database';
const FOLLOW_UP_SKIP = 'I skipped: Connect the staging database. Continue without it.';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

interface Message {
  author: string;
  type: string;
  content: string;
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

function awaitRequest(
  world: World,
  sessionId: string,
  kind: 'consent' | 'action',
): Promise<UserInputView> {
  return until(`no ${kind} request`, async () => {
    const list = await api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs');
    return list.requests.find(
      (request) => request.session_id === sessionId && request.kind === kind,
    );
  });
}

async function messages(world: World, sessionId: string): Promise<Message[]> {
  const page = await api<{ messages: Message[] }>(
    world,
    'GET',
    `/api/v1/sessions/${sessionId}/messages?limit=500`,
  );
  return page.messages;
}

function card(page: Page, requestId: string): Locator {
  return page.locator(`[data-testid="user-input-card"][data-request-id="${requestId}"]`);
}

function settledAs(page: Page, requestId: string, outcome: string): Locator {
  return page.locator(
    `[data-testid="user-input-card"][data-request-id="${requestId}"][data-outcome="${outcome}"]`,
  );
}

function agentSaid(page: Page, text: string): Locator {
  return page.getByTestId('transcript').getByText(text).first();
}

async function noHorizontalOverflow(page: Page): Promise<unknown> {
  return page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
}

/** Two animation frames: whatever a finished response set off has rendered. */
async function settleFrames(page: Page): Promise<void> {
  await page.evaluate(
    'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))',
  );
}

describe('consent and action cards in Chromium', () => {
  let world: World;
  let browser: Browser;
  const states = new Map<World, StorageState>();
  const screenshots: string[] = [];

  async function signIn(target: World): Promise<StorageState> {
    const known = states.get(target);
    if (known) return known;
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(target.signInUrl);
    await page.waitForURL(`${target.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    const state = await context.storageState();
    await context.close();
    states.set(target, state);
    return state;
  }

  async function desktop(target = world): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      storageState: await signIn(target),
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(30_000);
    return { context, page: await context.newPage() };
  }

  async function openSession(page: Page, target: World, sessionId: string): Promise<void> {
    await page.goto(`${target.origin}/sessions/${sessionId}`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
  }

  async function shoot(target: Page | Locator, name: string): Promise<void> {
    const path = join(ARTIFACTS, `${name}.png`);
    await target.screenshot({ path });
    screenshots.push(path);
  }

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
    if (screenshots.length > 0) console.log(`screenshots:\n${screenshots.join('\n')}`);
  });

  it('allows once from the session view, with the command in view: the agent proceeds', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Consent allow once', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const bodies: unknown[] = [];
    page.on('request', (sent) => {
      if (sent.url().endsWith('/respond')) bodies.push(sent.postDataJSON());
    });
    await openSession(page, world, created.session.id);
    const consent = settledAs(page, request.id, 'waiting');
    await consent.waitFor(WAIT);
    await expect(consent.locator('.user-input-title').textContent()).resolves.toBe(
      'Delete the build cache (rm -rf .cache)',
    );
    await expect(consent.textContent()).resolves.toContain('Tool: delete');
    await expect(consent.getByTestId('consent-detail').allTextContents()).resolves.toEqual([
      'rm -rf .cache',
    ]);
    const options = consent.getByTestId('consent-option');
    // The demo's labels say no more than the kinds' words ("Reject" is a "Reject once").
    await expect(options.allTextContents()).resolves.toEqual([
      'Allow once',
      'Always allow',
      'Reject once',
    ]);
    await expect(consent.getByTestId('user-input-deadline').textContent()).resolves.toMatch(
      /Answer within [45]:\d\d/,
    );
    await shoot(consent, 'consent-card');
    // The chip names the wait, not the agent's process ("Running").
    await expect(page.getByTestId('session-state').textContent()).resolves.toBe(
      'Waiting for permission',
    );

    await consent.locator('[data-option-id="allow-once"]').click();
    await settledAs(page, request.id, 'allowed').waitFor(WAIT);
    await agentSaid(page, 'Permission answer: "allow-once" (Allow once).').waitFor(WAIT);
    expect(bodies).toEqual([{ option_id: 'allow-once' }]);
    await expect(
      card(page, request.id).getByTestId('user-input-outcome').textContent(),
    ).resolves.toBe('Allowed: Allow once');
    await expect(card(page, request.id).getByTestId('consent-option').count()).resolves.toBe(0);
    // The transcript keeps the decision and who made it, also after a reload.
    await page.reload();
    const kept = page.getByTestId('user-input-decision');
    await kept.waitFor(WAIT);
    await expect(kept.locator('.message-content').textContent()).resolves.toBe(
      'Allow once: Delete the build cache (rm -rf .cache)',
    );
    await expect(kept.getByTestId('decided-by').textContent()).resolves.toBe('By admin (web app)');
    await context.close();
  });

  it('shows an agent’s label that says more than its option’s kind beside the kind’s words', async () => {
    const created = await startTask(world, 'Consent labels', '/permission');
    await awaitRequest(world, created.session.id, 'consent');
    const consent = await namedOptionsConsent(world, created, [
      { option_id: 'once', label: 'allow', kind: 'allow_once' },
      { option_id: 'always', label: 'Reject (do not run)', kind: 'allow_always' },
      { option_id: 'never', label: 'No, and tell Claude why', kind: 'reject_once' },
    ]);
    const { context, page } = await desktop();
    await openSession(page, world, created.session.id);
    const options = card(page, consent.id).getByTestId('consent-option');
    await options.first().waitFor(WAIT);
    await expect(options.allTextContents()).resolves.toEqual([
      'Allow once',
      'Reject (do not run)Always allow',
      'No, and tell Claude whyReject once',
    ]);
    await context.close();
  });

  it('rejects from the inbox: the task is marked, and the agent reports the refusal', async () => {
    const { context, page } = await desktop();
    // The page's clock stops around the undo window, and the test moves it past the edge instead of waiting.
    await page.clock.install();
    await page.goto(`${world.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    const created = await startTask(world, 'Consent reject', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const item = page.locator(`[data-testid="inbox-user-input"][data-request-id="${request.id}"]`);
    await item.getByTestId('consent-option').first().waitFor(WAIT);
    // The task's title arrives with the task list, which may come after the request.
    await item.locator('.user-input-task', { hasText: /^Consent reject$/ }).waitFor(WAIT);
    const task = page.getByTestId('task-link').filter({ hasText: 'Consent reject' });
    await expect(task.getAttribute('data-waiting')).resolves.toBe('consent');

    // A Reject is confirmed, then held for the undo window; Undo sends nothing.
    await pauseClock(page);
    await item.locator('[data-option-id="reject-once"]').click();
    // The confirmation names the choice as its button did: the demo's "Reject" is a "Reject once".
    await expect(item.getByTestId('decision-confirm-yes').textContent()).resolves.toBe(
      'Reject once',
    );
    await item.getByTestId('decision-confirm-yes').click();
    await item.getByTestId('user-input-undo').waitFor(WAIT);
    await item.getByTestId('undo').click();
    await item.getByTestId('user-input-undo').waitFor({ state: 'detached', ...WAIT });
    await page.clock.runFor(UNDO_WINDOW_MS + 1_000);
    await page.clock.resume();
    await settleRequests(page);
    await expect(awaitRequest(world, created.session.id, 'consent')).resolves.toMatchObject({
      id: request.id,
      status: 'awaiting',
    });
    await item.locator('[data-option-id="reject-once"]').click();
    await item.getByTestId('decision-confirm-yes').click();
    await item.getByTestId('send-now').click();
    const settled = page
      .getByTestId('inbox-recent')
      .locator(`[data-request-id="${request.id}"] [data-outcome="rejected"]`);
    await settled.waitFor(WAIT);
    await expect(settled.getByTestId('user-input-outcome').textContent()).resolves.toBe(
      'Rejected: Reject',
    );
    await task.and(page.locator(':not([data-waiting])')).waitFor(WAIT);

    await settled.locator('.user-input-task').click();
    await page.waitForURL(`**/sessions/${created.session.id}`);
    await agentSaid(page, 'Permission answer: "reject-once" (Reject).').waitFor(WAIT);
    await context.close();
  });

  it('rejects with the person’s reason: Undo sends nothing; the agent gets the reason after its turn; the transcript keeps it', async () => {
    const { context, page } = await desktop();
    await page.clock.install();
    const created = await startTask(world, 'Consent reject reason', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const bodies: unknown[] = [];
    page.on('request', (sent) => {
      if (sent.url().endsWith('/respond')) bodies.push(sent.postDataJSON());
    });
    await openSession(page, world, created.session.id);
    const consent = card(page, request.id);
    const reason = 'Delete only .cache/tmp, keep the rest';
    await consent.locator('[data-option-id="reject-once"]').click();
    await consent.getByTestId('decision-reason').fill(reason);
    await consent.getByTestId('decision-confirm-yes').click();
    await consent.getByTestId('user-input-undo').waitFor(WAIT);
    await consent.getByTestId('undo').click();
    await consent.locator('[data-option-id="reject-once"]').waitFor(WAIT);
    expect(bodies).toEqual([]);

    await consent.locator('[data-option-id="reject-once"]').click();
    await consent.getByTestId('decision-reason').fill(reason);
    await pauseClock(page);
    await consent.getByTestId('decision-confirm-yes').click();
    // Held for the undo window, then sent on its own.
    await consent.getByTestId('user-input-undo').waitFor(WAIT);
    await page.clock.runFor(UNDO_WINDOW_MS - 500);
    await settleRequests(page);
    expect(bodies).toEqual([]);
    await page.clock.runFor(1_000);
    await page.clock.resume();
    await consent.getByTestId('user-input-undo').waitFor({ state: 'detached', ...WAIT });
    await settledAs(page, request.id, 'rejected').waitFor(WAIT);
    expect(bodies).toEqual([{ option_id: 'reject-once', reason }]);
    await expect(consent.getByTestId('user-input-outcome').textContent()).resolves.toBe(
      `Rejected: Reject. Your reason: “${reason}”`,
    );
    await agentSaid(page, 'Permission answer: "reject-once" (Reject).').waitFor(WAIT);
    const followUp = `I rejected: ${request.title}. My reason: ${reason}`;
    await agentSaid(page, `You said: ${followUp}`).waitFor(WAIT);
    await page.reload();
    const kept = page.getByTestId('user-input-decision');
    await kept.waitFor(WAIT);
    await expect(kept.locator('.message-content').textContent()).resolves.toBe(
      `Reject once: ${request.title}`,
    );
    await expect(kept.getByTestId('decision-reason').textContent()).resolves.toBe(
      `Reason: “${reason}”`,
    );
    await shoot(kept, 'consent-reject-reason');
    await context.close();
  });

  it('does Done on an action: the link is safe, and the follow-up is sent once', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Action done', '/action');
    const request = await awaitRequest(world, created.session.id, 'action');
    await openSession(page, world, created.session.id);
    const action = settledAs(page, request.id, 'waiting');
    await action.waitFor(WAIT);
    await expect(action.getByTestId('action-instructions').textContent()).resolves.toBe(
      'Open the link, sign in, and allow read access to the staging database.',
    );
    const link = action.getByTestId('action-link');
    await expect(link.getAttribute('href')).resolves.toBe('https://example.com/connect/staging');
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(page.getByTestId('session-state').textContent()).resolves.toBe(
      'Waiting for an action',
    );

    await action.getByTestId('action-done').click();
    const followUp = card(page, request.id).getByTestId('follow-up-text');
    await followUp.waitFor(WAIT);
    await expect(followUp.textContent()).resolves.toBe(FOLLOW_UP_DONE);
    await agentSaid(page, `You said: ${FOLLOW_UP_DONE}`).waitFor(WAIT);
    await settledAs(page, request.id, 'follow_up_sent').waitFor(WAIT);
    const fromUser = page
      .locator('[data-testid="message"].message-user')
      .filter({ hasText: FOLLOW_UP_DONE });
    await expect(fromUser.count()).resolves.toBe(1);
    // Sent for the person who pressed Done: the transcript names them, never "Someone".
    await expect(
      fromUser.locator('.message-author[data-author="you"]').textContent(WAIT),
    ).resolves.toBe('You');
    const stored = (await messages(world, created.session.id)).filter(
      (message) => message.author === 'user' && message.content === FOLLOW_UP_DONE,
    );
    expect(stored).toHaveLength(1);
    await context.close();
  });

  it('skips an action: the skip text is sent for the person', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Action skip', '/action');
    const request = await awaitRequest(world, created.session.id, 'action');
    await openSession(page, world, created.session.id);
    await card(page, request.id).getByTestId('action-skip').click();
    await card(page, request.id).getByTestId('decision-confirm-yes').click();
    await card(page, request.id).getByTestId('send-now').click();
    await expect(
      card(page, request.id).getByTestId('follow-up-text').textContent(WAIT),
    ).resolves.toBe(FOLLOW_UP_SKIP);
    await agentSaid(page, `You said: ${FOLLOW_UP_SKIP}`).waitFor(WAIT);
    await agentSaid(page, '"status":"skipped"').waitFor(WAIT);
    await context.close();
  });

  it('skips an action with the person’s reason: the agent and the follow-up get it, the call reads Skipped', async () => {
    const { context, page } = await desktop();
    await page.clock.install();
    const created = await startTask(world, 'Action skip reason', '/action');
    const request = await awaitRequest(world, created.session.id, 'action');
    const recorded = recordRequests(page);
    await openSession(page, world, created.session.id);
    await card(page, request.id).getByTestId('action-skip').click();
    await card(page, request.id).getByTestId('decision-reason').fill('Der Zugang kommt morgen');
    await pauseClock(page);
    await card(page, request.id).getByTestId('decision-confirm-yes').click();
    // Nothing leaves before the undo window ends on its own.
    await card(page, request.id).getByTestId('user-input-undo').waitFor(WAIT);
    await page.clock.runFor(UNDO_WINDOW_MS - 500);
    await settleRequests(page);
    expect(recorded.responds).toEqual([]);
    await page.clock.runFor(1_000);
    await page.clock.resume();
    await card(page, request.id)
      .getByTestId('user-input-undo')
      .waitFor({ state: 'detached', ...WAIT });
    const text = `${FOLLOW_UP_SKIP} My reason: Der Zugang kommt morgen`;
    await expect(
      card(page, request.id).getByTestId('follow-up-text').textContent(WAIT),
    ).resolves.toBe(text);
    await agentSaid(page, '"reason":"Der Zugang kommt morgen"').waitFor(WAIT);
    await agentSaid(page, `You said: ${text}`).waitFor(WAIT);
    const call = page
      .getByTestId('message')
      .filter({ hasText: 'Asking you to connect the staging database' })
      .getByTestId('tool-status');
    await expect(call.getAttribute('data-status')).resolves.toBe('completed');
    await expect(call.getAttribute('data-label')).resolves.toBe('skipped');
    await expect(call.textContent()).resolves.toBe('Skipped');
    await context.close();
  });

  it('sends an answer given while the server is unreachable once, when the connection returns', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Consent offline', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const outage = await scriptOutage(page, RESPOND);
    await openSession(page, world, created.session.id);
    const allow = card(page, request.id).locator('[data-option-id="allow-once"]');
    await allow.waitFor(WAIT);

    await outage.begin();
    await page.getByTestId('offline-banner').waitFor(WAIT);
    await allow.click();
    const waiting = card(page, request.id).locator(
      '[data-testid="user-input-error"][data-waiting="true"]',
    );
    await waiting.waitFor(WAIT);
    await expect(waiting.textContent()).resolves.toContain(
      'will be sent when the connection returns',
    );

    outage.end();
    await settledAs(page, request.id, 'allowed').waitFor(WAIT);
    await agentSaid(page, 'Permission answer: "allow-once" (Allow once).').waitFor(WAIT);
    expect(outage.reached).toBe(1);
    await context.close();
  });

  it('keeps the choices after a 503 and a network failure, and Retry delivers the answer', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Consent flaky', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const responds = await scriptRoute(page, RESPOND, ['unavailable', 'network']);
    await openSession(page, world, created.session.id);
    const allow = card(page, request.id).locator('[data-option-id="allow-once"]');
    await allow.click();
    const error = card(page, request.id).getByTestId('user-input-error');
    await error.waitFor(WAIT);
    await expect(allow.isEnabled()).resolves.toBe(true);
    await error.getByTestId('user-input-retry').click();
    await page.getByTestId('user-input-status').waitFor({ state: 'detached', ...WAIT });
    await error.waitFor(WAIT);
    expect(responds.attempts).toBe(2);
    await error.getByTestId('user-input-retry').click();
    await settledAs(page, request.id, 'allowed').waitFor(WAIT);
    await agentSaid(page, 'Permission answer: "allow-once" (Allow once).').waitFor(WAIT);
    expect(responds.attempts).toBe(3);
    await context.close();
  });

  it('disables the choices while an answer is on its way; a 409 shows the settled card, no error', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Consent raced', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    let release: () => void = () => undefined;
    const answeredElsewhere = new Promise<void>((done) => {
      release = done;
    });
    await liveRoute(page, RESPOND, async (route: Route) => {
      await answeredElsewhere;
      await route.continue();
    });
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/respond')) statuses.push(response.status());
    });
    await openSession(page, world, created.session.id);
    const options = card(page, request.id).getByTestId('consent-option');
    await options.first().click();
    await page.getByTestId('user-input-status').waitFor(WAIT);
    for (const index of [0, 1, 2]) {
      await expect(options.nth(index).isDisabled()).resolves.toBe(true);
    }
    // Someone else rejects first; this tab's allow then meets a settled request.
    await api(world, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'reject-once',
    });
    await settledAs(page, request.id, 'rejected').waitFor(WAIT);
    const conflict = page.waitForResponse((response) => response.url().endsWith('/respond'));
    release();
    await conflict;
    await settleFrames(page);
    expect(statuses).toEqual([409]);
    await expect(card(page, request.id).getByTestId('user-input-error').count()).resolves.toBe(0);
    await expect(
      card(page, request.id).getByTestId('user-input-outcome').textContent(),
    ).resolves.toBe('Rejected: Reject');
    // The same person answered through the API: told that this tab's choice did not count.
    await expect(
      card(page, request.id).getByTestId('user-input-status').textContent(),
    ).resolves.toBe('You already decided this elsewhere (API); this choice was not applied.');
    await agentSaid(page, 'Permission answer: "reject-once" (Reject).').waitFor(WAIT);
    await context.close();
  });

  it('tells a person whose choice lost a race who decided first', async () => {
    const admin = await api<{ user: { name: string } }>(world, 'GET', '/api/v1/me');
    const carol = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Carol',
    });
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: carol.user.id,
      role: 'member',
    });
    const page = await signedInPage(world, browser, carol.user.id);

    const created = await startTask(world, 'Consent lost', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    let release: () => void = () => undefined;
    const answeredElsewhere = new Promise<void>((done) => {
      release = done;
    });
    await liveRoute(page, RESPOND, async (route: Route) => {
      await answeredElsewhere;
      await route.continue();
    });
    await openSession(page, world, created.session.id);
    await card(page, request.id).locator('[data-option-id="allow-always"]').click();
    await api(world, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    await settledAs(page, request.id, 'allowed').waitFor(WAIT);
    const conflict = page.waitForResponse((response) => response.url().endsWith('/respond'));
    release();
    await expect(conflict.then((response) => response.status())).resolves.toBe(409);
    const status = card(page, request.id).locator(
      '[data-testid="user-input-status"][data-state="decided-first"]',
    );
    await status.waitFor(WAIT);
    await expect(status.textContent()).resolves.toBe(
      `${admin.user.name} decided first (API); your choice was not applied.`,
    );
    await expect(
      card(page, request.id).getByTestId('user-input-outcome').textContent(),
    ).resolves.toBe('Allowed: Allow once');
    await page.context().close();
  });

  it('shows a request created while the page loads, and a racing snapshot never undoes an answer', async () => {
    const { context, page } = await desktop();
    // The page's snapshot is read before the request exists and delivered after its event.
    let release: () => void = () => undefined;
    const held = new Promise<void>((done) => {
      release = done;
    });
    let snapshotsSeen = 0;
    await liveRoute(page, SNAPSHOT, async (route: Route) => {
      snapshotsSeen++;
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    await page.goto(`${world.origin}/`);
    await until('the snapshot request', () =>
      Promise.resolve(snapshotsSeen > 0 ? true : undefined),
    );
    const created = await startTask(world, 'Created while loading', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    const item = page.locator(`[data-testid="inbox-user-input"][data-request-id="${request.id}"]`);
    await item.getByTestId('consent-option').first().waitFor(WAIT);
    const finished = page.waitForEvent('requestfinished', (sent) =>
      sent.url().endsWith('/user-inputs'),
    );
    release();
    await finished;
    await settleFrames(page);
    await expect(item.getByTestId('consent-option').count()).resolves.toBe(3);
    await page.unroute(SNAPSHOT);

    // Now a snapshot read while the request waits, delivered after it was answered elsewhere.
    const second = await desktop();
    let answered: () => void = () => undefined;
    const afterAnswer = new Promise<void>((done) => {
      answered = done;
    });
    let fetched: () => void = () => undefined;
    const snapshotRead = new Promise<void>((done) => {
      fetched = done;
    });
    await liveRoute(second.page, SNAPSHOT, async (route: Route) => {
      const response = await route.fetch();
      fetched();
      await afterAnswer;
      await route.fulfill({ response });
    });
    const settledFinished = second.page.waitForEvent('requestfinished', (sent) =>
      sent.url().endsWith('/user-inputs'),
    );
    await second.page.goto(`${world.origin}/sessions/${created.session.id}`);
    await snapshotRead;
    await api(world, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    await settledAs(second.page, request.id, 'allowed').waitFor(WAIT);
    answered();
    await settledFinished;
    await settleFrames(second.page);
    await expect(settledAs(second.page, request.id, 'allowed').count()).resolves.toBe(1);
    // The first tab, still open on the inbox, saw it settle live.
    await page
      .getByTestId('inbox-recent')
      .locator(`[data-request-id="${request.id}"] [data-outcome="allowed"]`)
      .waitFor(WAIT);
    await second.context.close();
    await context.close();
  });

  it('settles the card live in a second tab when the first answers', async () => {
    const created = await startTask(world, 'Two tabs', '/action');
    const request = await awaitRequest(world, created.session.id, 'action');
    const first = await desktop();
    const second = await desktop();
    await openSession(first.page, world, created.session.id);
    await openSession(second.page, world, created.session.id);
    await settledAs(second.page, request.id, 'waiting').waitFor(WAIT);
    await card(first.page, request.id).getByTestId('action-done').click();
    await second.page
      .locator(
        `[data-testid="user-input-card"][data-request-id="${request.id}"][data-outcome^="follow_up"]`,
      )
      .waitFor(WAIT);
    await expect(
      card(second.page, request.id).getByTestId('follow-up-text').textContent(),
    ).resolves.toBe(FOLLOW_UP_DONE);
    await expect(card(second.page, request.id).getByTestId('action-done').count()).resolves.toBe(0);
    await first.context.close();
    await second.context.close();
  });

  it('works on a phone with touch in the inbox: 44 px targets, no horizontal overflow', async () => {
    const context = await browser.newContext({
      storageState: await signIn(world),
      locale: 'en-US',
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 2,
    });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const created = await startTask(world, 'Connect staging from the phone', '/action');
    const request = await awaitRequest(world, created.session.id, 'action');
    await page.goto(`${world.origin}/`);
    const item = page.locator(`[data-testid="inbox-user-input"][data-request-id="${request.id}"]`);
    await item.getByTestId('action-done').waitFor(WAIT);
    await expect(page.evaluate('matchMedia("(pointer: coarse)").matches')).resolves.toBe(true);
    const targets = item.locator('button, a');
    const count = await targets.count();
    expect(count).toBe(4); // task link, Open link, Done, Skip
    for (let index = 0; index < count; index++) {
      const box = await targets.nth(index).boundingBox();
      expect(box, `target ${String(index)}`).not.toBeNull();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
      expect(box?.width ?? 0).toBeGreaterThanOrEqual(44);
    }
    await expect(noHorizontalOverflow(page)).resolves.toBe(true);
    await item.scrollIntoViewIfNeeded();
    await shoot(page, 'phone-action-card');

    await item.getByTestId('action-done').tap();
    const settled = page.getByTestId('inbox-recent').locator(`[data-request-id="${request.id}"]`);
    await settled.getByTestId('follow-up-text').waitFor(WAIT);
    await expect(noHorizontalOverflow(page)).resolves.toBe(true);
    await context.close();
  });

  // Last in this world: "always" is remembered per profile and tool for the server's lifetime,
  // so every later /permission here would be allowed without asking.
  it('remembers "always": the next permission in the session is allowed without asking', async () => {
    const { context, page } = await desktop();
    const created = await startTask(world, 'Consent always', '/permission');
    const request = await awaitRequest(world, created.session.id, 'consent');
    await openSession(page, world, created.session.id);
    await card(page, request.id).locator('[data-option-id="allow-always"]').click();
    await agentSaid(page, 'Permission answer: "allow-always" (Always allow).').waitFor(WAIT);
    await page.locator('[data-testid="session-state"][data-state="idle"]').waitFor(WAIT);

    await page.getByTestId('composer-input').fill('/permission');
    await page.getByTestId('composer-send').click();
    const remembered = page.locator('[data-testid="user-input-card"][data-outcome="remembered"]');
    await remembered.waitFor(WAIT);
    await expect(remembered.getByTestId('user-input-outcome').textContent()).resolves.toBe(
      'Allowed without asking: you chose “Always allow” earlier.',
    );
    // The person's own choice went to the agent as "always"; the rule answers with allow-once,
    // so the agent keeps no grant of its own that a revoke could not reach.
    await until('the person’s allow-always, then the rule’s allow-once', async () => {
      const said = (await messages(world, created.session.id)).map((message) => message.content);
      const always = said.filter((content) => content.includes('"allow-always"'));
      const once = said.filter((content) => content.includes('"allow-once"'));
      return always.length === 1 && once.length === 1 ? said : undefined;
    });
    // It was never waiting: nothing was asked.
    await expect(
      page.locator('[data-testid="user-input-card"][data-outcome="waiting"]').count(),
    ).resolves.toBe(0);
    await context.close();
  });

  describe('with a short consent deadline', () => {
    let short: World;

    beforeAll(async () => {
      short = await startWorld({ userInputDeadlines: { consentMs: 1_500 } });
    });

    afterAll(async () => {
      await short.close();
    });

    it('shows a timed-out consent apart from a reject, and the agent is refused', async () => {
      const { context, page } = await desktop(short);
      await page.goto(`${short.origin}/`);
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
      const created = await startTask(short, 'Nobody answers', '/permission');
      const request = await awaitRequest(short, created.session.id, 'consent');
      await page.locator('.user-input-task', { hasText: 'Nobody answers' }).click();
      await settledAs(page, request.id, 'timed_out').waitFor(WAIT);
      await expect(
        card(page, request.id).getByTestId('user-input-outcome').textContent(),
      ).resolves.toBe('Timed out: nobody answered in time, so the agent was not allowed.');
      await agentSaid(page, 'The permission request was cancelled.').waitFor(WAIT);
      await expect(
        page.getByTestId('transcript').getByText('Permission answer').count(),
      ).resolves.toBe(0);
      await context.close();
    });
  });

  describe('with a test-played agent (exact busy windows)', () => {
    let played: World;
    const host = new TestHost();

    beforeAll(async () => {
      played = await startWorld({ host });
    });

    afterAll(async () => {
      await played.close();
    });

    async function sessionState(taskId: string, sessionId: string): Promise<string | undefined> {
      const listed = await api<{ sessions: { id: string; state: string }[] }>(
        played,
        'GET',
        `/api/v1/tasks/${taskId}/sessions`,
      );
      return listed.sessions.find((session) => session.id === sessionId)?.state;
    }

    it('lists a follow-up while the session is busy; it can be removed, a person’s item edited', async () => {
      const created = await startTask(played, 'Queue with a follow-up', 'first');
      const sessionId = created.session.id;
      await until('the first prompt', () =>
        Promise.resolve(host.prompts.some((prompt) => prompt.sessionId === sessionId) || undefined),
      );
      const asked = played.clarion.turns.userInputs.request({
        kind: 'action',
        sessionId,
        taskId: created.task.id,
        title: 'Connect the database',
        instructions: 'Open the console and add the key.',
      });
      if (!asked.ok) throw new Error('the action request was refused');
      // The agent's turn ends with the action still open; then the person keeps the session busy.
      host.endTurn(sessionId);
      await until('the session to idle', async () =>
        (await sessionState(created.task.id, sessionId)) === 'idle' ? true : undefined,
      );
      await api(played, 'POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'meanwhile, lint',
        admission_key: 'k-lint',
      });

      const { context, page } = await desktop(played);
      await openSession(page, played, sessionId);
      await page.getByTestId('composer-input').fill('then run the tests');
      await page.getByTestId('composer-send').click();
      const userItem = page.locator('[data-testid="queue-item"][data-owner="user"]');
      await userItem.waitFor(WAIT);

      await card(page, asked.id).getByTestId('action-done').click();
      const followUp = page.locator(
        `[data-testid="queue-item"][data-owner="machine"][data-item-id="${asked.id}"]`,
      );
      await followUp.waitFor(WAIT);
      await expect(followUp.textContent()).resolves.toContain(
        'Follow-upContinue. I have completed: Connect the database',
      );
      await expect(followUp.getByTestId('queue-edit').count()).resolves.toBe(0);
      await settledAs(page, asked.id, 'follow_up_pending').waitFor(WAIT);
      await expect(card(page, asked.id).textContent()).resolves.toContain('Queued;');

      await userItem.getByTestId('queue-edit').click();
      await userItem.getByTestId('queue-edit-input').fill('then run the unit tests');
      await userItem.getByTestId('queue-save').click();
      await userItem.getByText('then run the unit tests').waitFor(WAIT);

      await followUp.getByTestId('queue-remove').click();
      await followUp.waitFor({ state: 'detached', ...WAIT });
      await settledAs(page, asked.id, 'follow_up_dropped').waitFor(WAIT);
      expect(played.clarion.turns.userInputs.get(asked.id)).toMatchObject({
        status: 'settled',
        settled_reason: 'rejected',
      });

      // The turn ends: the edited message runs next, and the removed follow-up never does.
      host.endTurn(sessionId);
      await until('the edited message to run', () =>
        Promise.resolve(
          host.prompts.some((prompt) => prompt.text === 'then run the unit tests') || undefined,
        ),
      );
      await userItem.waitFor({ state: 'detached', ...WAIT });
      const texts = (await messages(played, sessionId)).map((message) => message.content);
      expect(texts.filter((text) => text.startsWith('Continue.'))).toEqual([]);
      expect(host.prompts.map((prompt) => prompt.text)).toEqual([
        'first',
        'meanwhile, lint',
        'then run the unit tests',
      ]);
      await context.close();
    });
  });
});
