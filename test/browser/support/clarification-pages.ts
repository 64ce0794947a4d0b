/**
 * What the clarification browser suites share: one world and one Chromium
 * per suite, a signed-in storage state, desktop and phone contexts, locators
 * for the overlay, a recorder of the page's respond and message requests,
 * and REST helpers that read what the agent actually received.
 */
import { afterAll, beforeAll } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import type { ServerOptions } from '../../../src/server.js';
import {
  api,
  ARTIFACTS,
  launchChromium,
  startWorld,
  type CreatedTask,
  type World,
} from './harness.js';
import { liveRoute } from './live-route.js';

export const RESPOND = '**/api/v1/clarification/*/respond';
export const MESSAGES = '**/api/v1/sessions/*/messages';
export const WAIT = { timeout: 30_000 };

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
type ContextOptions = Parameters<Browser['newContext']>[0];

export interface Suite {
  world: World;
  browser: Browser;
  /** A signed-in page at desktop size; `options` adds to it (another locale). */
  desktop(options?: ContextOptions): Promise<{ context: BrowserContext; page: Page }>;
  phone(): Promise<{ context: BrowserContext; page: Page }>;
  /** Saves a screenshot under dist/test-artifacts and lists it at the end of the suite. */
  shoot(page: Page, name: string, fullPage?: boolean): Promise<void>;
  close(): Promise<void>;
}

/** `options` go to the suite's server (a test-played agent host, say). */
/** `profilesEnv` as `startWorld` takes it. */
export async function startSuite(
  options: ServerOptions = {},
  profilesEnv: NodeJS.ProcessEnv = {},
): Promise<Suite> {
  await mkdir(ARTIFACTS, { recursive: true });
  const [world, browser] = await Promise.all([startWorld(options, profilesEnv), launchChromium()]);
  const signIn = await browser.newContext({ locale: 'en-US' });
  const page = await signIn.newPage();
  await page.goto(world.signInUrl);
  await page.waitForURL(`${world.origin}/`);
  await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
  const signedIn: StorageState = await signIn.storageState();
  await signIn.close();
  const screenshots: string[] = [];

  async function open(options: ContextOptions) {
    const context = await browser.newContext({
      storageState: signedIn,
      locale: 'en-US',
      ...options,
    });
    context.setDefaultTimeout(30_000);
    return { context, page: await context.newPage() };
  }

  return {
    world,
    browser,
    desktop: (options = {}) => open({ viewport: { width: 1280, height: 900 }, ...options }),
    phone: () =>
      open({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        deviceScaleFactor: 2,
      }),
    async shoot(target, name, fullPage = true) {
      const path = join(ARTIFACTS, `${name}.png`);
      // Looking at a tab brings it to the front: headless Chromium draws no frames for a tab
      // behind another one, and a capture of one waits about 4 s for them.
      await target.bringToFront();
      // A full-page capture re-emulates the viewport, which briefly drops touch emulation.
      await target.screenshot({ path, fullPage });
      screenshots.push(path);
    },
    async close() {
      await browser.close();
      await world.close();
      if (screenshots.length > 0) console.log(`screenshots:\n${screenshots.join('\n')}`);
    },
  };
}

/**
 * The suite of the enclosing `describe`: started before its tests and closed
 * after them. Its members are read when a test runs, not when it is defined.
 */
export function useSuite(options: ServerOptions = {}, profilesEnv: NodeJS.ProcessEnv = {}): Suite {
  let started: Suite | undefined;
  beforeAll(async () => {
    started = await startSuite(options, profilesEnv);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): Suite => {
    if (!started) throw new Error('the suite starts in beforeAll');
    return started;
  };
  return {
    get world() {
      return current().world;
    },
    get browser() {
      return current().browser;
    },
    desktop: (options) => current().desktop(options),
    phone: () => current().phone(),
    shoot: (page, name, fullPage) => current().shoot(page, name, fullPage),
    close: () => current().close(),
  };
}

export async function openSession(
  world: World,
  page: Page,
  sessionId: string,
  query = '',
): Promise<void> {
  await page.goto(`${world.origin}/sessions/${sessionId}${query}`);
  await page.getByTestId('clarification-overlay').waitFor(WAIT);
}

function exactly(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/** An option button of the form inside `scope` (the overlay unless told otherwise). */
export function option(page: Page, label: string, scope = 'clarification-overlay') {
  return page
    .getByTestId(scope)
    .locator('button.option')
    .filter({ has: page.locator('.option-label', { hasText: exactly(label) }) });
}

export function agentSaid(page: Page, text: string) {
  return page.getByTestId('transcript').getByText(text).first();
}

export function banner(page: Page, state: string) {
  return page.locator(`[data-testid="clarification-banner"][data-state="${state}"]`);
}

/** Every respond and message POST the page made, in order, with its body. */
export interface Recorded {
  responds: unknown[];
  messages: { text: string; admission_key: string }[];
}

export function recordRequests(page: Page): Recorded {
  const recorded: Recorded = { responds: [], messages: [] };
  page.on('request', (request: Request) => {
    if (request.method() !== 'POST') return;
    const path = new URL(request.url()).pathname;
    if (path.endsWith('/respond')) recorded.responds.push(request.postDataJSON());
    if (/\/api\/v1\/sessions\/[^/]+\/messages$/.test(path)) {
      recorded.messages.push(request.postDataJSON() as Recorded['messages'][number]);
    }
  });
  return recorded;
}

/**
 * Stops the page's clock (installed with `page.clock.install()`), so only
 * `page.clock.runFor` moves it: a window's edge then falls where the test
 * says, however slowly a loaded machine runs the steps between.
 */
export async function pauseClock(page: Page): Promise<void> {
  const now = await page.evaluate(() => Date.now());
  // A second ahead, so the pause is never in the page's past by the time it lands.
  await page.clock.pauseAt(now + 1_000);
}

/**
 * Lets a request the page has just started reach `recordRequests`: its
 * event crosses from the browser after the call that caused it returns.
 * Waits in real time, which a clock the test installed in the page does not touch.
 */
export async function settleRequests(page: Page): Promise<void> {
  await page.evaluate(() => 0);
  await new Promise((resolve) => {
    setTimeout(resolve, 300);
  });
}

export interface TranscriptMessage {
  id: string;
  type: string;
  author: string;
  content: string;
  turn_id: string;
  metadata: Record<string, unknown>;
}

/** The session's transcript as the server stores it (the first 200 rows; the suites stay far below). */
export async function transcript(world: World, sessionId: string): Promise<TranscriptMessage[]> {
  const page = await api<{ messages: TranscriptMessage[] }>(
    world,
    'GET',
    `/api/v1/sessions/${sessionId}/messages?limit=200`,
  );
  return page.messages;
}

/** What the agent said back, one string per turn (streamed chunks joined), oldest first. */
export async function agentReplies(world: World, sessionId: string): Promise<string[]> {
  const byTurn = new Map<string, string>();
  for (const message of await transcript(world, sessionId)) {
    if (message.author !== 'agent' || message.type !== 'message') continue;
    byTurn.set(message.turn_id, (byTurn.get(message.turn_id) ?? '') + message.content);
  }
  return [...byTurn.values()];
}

/** User messages (prompts the person, or a late answer, sent), oldest first. */
export async function userMessages(world: World, sessionId: string): Promise<string[]> {
  return (await transcript(world, sessionId))
    .filter((message) => message.author === 'user')
    .map((message) => message.content);
}

export async function sessionState(world: World, sessionId: string, taskId: string) {
  const { sessions } = await api<{ sessions: { id: string; state: string }[] }>(
    world,
    'GET',
    `/api/v1/tasks/${taskId}/sessions`,
  );
  return sessions.find((session) => session.id === sessionId)?.state;
}

/** Polls `read` until `done` holds (30 s), for server-side facts the page does not show. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in 30 s: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** Whether the page scrolls sideways (it must not at phone size). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  // A string, because this file is compiled without the DOM library.
  return page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');
}

/** Each visible button under `scope` with a box smaller than 44 × 44 px, by its text. */
export async function smallTargets(page: Page, scope: string): Promise<string[]> {
  const buttons = page.getByTestId(scope).locator('button:visible');
  const small: string[] = [];
  for (let index = 0; index < (await buttons.count()); index++) {
    const box = await buttons.nth(index).boundingBox();
    if (!box || box.height < 44 || box.width < 44) {
      small.push(((await buttons.nth(index).textContent()) ?? '').trim() || `#${String(index)}`);
    }
  }
  return small;
}

/** A request the test holds at the browser's edge until it says so. */
export interface Held {
  /** Resolves once the page has sent the held request; fails, naming it, if it never does (`WAIT`). */
  arrived: Promise<void>;
  /** Lets the held request (and any later ones) go through to the server. */
  release(): void;
}

/** Holds the page's first `method` request to `pattern`; later ones pass straight through. */
export async function holdFirst(page: Page, pattern: string, method = 'POST'): Promise<Held> {
  let arrive = (): void => undefined;
  let release = (): void => undefined;
  let timer: NodeJS.Timeout | undefined;
  const arrived = new Promise<void>((resolve, reject) => {
    arrive = resolve;
    timer = setTimeout(() => {
      reject(new Error(`the page sent no ${method} to ${pattern} within ${WAIT.timeout} ms`));
    }, WAIT.timeout);
    timer.unref();
  });
  // A test that never waits for it must not see its bound as an unhandled rejection.
  arrived.catch(() => undefined);
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  await liveRoute(page, pattern, async (route: Route) => {
    if (first && route.request().method() === method) {
      first = false;
      clearTimeout(timer);
      arrive();
      await released;
    }
    await route.continue();
  });
  return { arrived, release };
}

/** The pending ID of the bundle the overlay shows. */
export async function overlayPendingId(page: Page): Promise<string> {
  const id = await page.getByTestId('clarification-overlay').getAttribute('data-pending-id');
  if (!id) throw new Error('the overlay has no pending ID');
  return id;
}

/** Active bundles of a session, from the REST pending list. */
export async function pendingIds(world: World, sessionId: string): Promise<string[]> {
  const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
    world,
    'GET',
    '/api/v1/pending',
  );
  return pending.bundles
    .filter((bundle) => bundle.session_id === sessionId)
    .map((bundle) => bundle.pending_id);
}

let keys = 0;
/** A message sent the way a script (or another tab) would, with its own admission key. */
export function sendMessage(world: World, sessionId: string, text: string) {
  keys++;
  return api<{ outcome: string }>(world, 'POST', `/api/v1/sessions/${sessionId}/messages`, {
    text,
    admission_key: `test-${String(process.pid)}-${String(keys)}`,
  });
}

/** A session with twenty exchanges with the demo agent: long enough that its start is far off screen. */
export async function twentyExchanges(world: World, title: string): Promise<CreatedTask> {
  const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
    title,
    prompt: 'exchange 1: tell me about the build',
  });
  for (let n = 2; n <= 20; n++) {
    await sendMessage(world, created.session.id, `exchange ${String(n)}: and then?`);
  }
  await until(
    () => agentReplies(world, created.session.id),
    (replies) => replies.length >= 20,
  );
  return created;
}

/** Scrolls back to the conversation's start, then a little down, as a reader would. */
export async function scrollToStart(page: Page): Promise<number> {
  return page.evaluate<number>(
    `(() => {
      window.scrollTo(0, 0);
      window.scrollBy(0, 200);
      return window.scrollY;
    })()`,
  );
}
