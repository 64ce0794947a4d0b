/**
 * The browser suite's world: a real Clarion server in-process (SQLite in a
 * temporary directory, the demo agent), and in front of it one origin that
 * serves the built web app through `registerWebApp` and passes `/api`,
 * `/auth`, `/mcp` (and the events WebSocket) through to Clarion unchanged, so
 * the cookie, same-origin checks and events behave as when Clarion serves the
 * app itself. Chromium is Debian's, driven by playwright-core.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { loadAgentProfiles } from '../../../src/agents/profiles.js';
import type { ConsentOption, RequestResult } from '../../../src/user-input/index.js';
import type { Config } from '../../../src/config.js';
import { isReservedPath, registerWebApp } from '../../../src/http/web-app.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../../src/server.js';
import { BUILT_WEB_APP, builtPath } from '../../../src/support/index.js';
import { linkPath } from '../../support/browser-sign-in.js';
import { eventually } from '../../support/clarification-harness.js';
import { borrowContext, type ContextOptions } from './context-pool.js';

export const ADMIN_TOKEN = 'browser-admin-token-0123456789abcdef';
/** `CLARION_TEST_WEB_ROOT` lets parallel work build and test its own copy of the app. */
export const WEB_ROOT = resolve(process.env.CLARION_TEST_WEB_ROOT ?? builtPath(BUILT_WEB_APP));
export const ARTIFACTS = resolve(import.meta.dirname, '../../../dist/test-artifacts');

/** The web app's events socket, for `routeWebSocket`: its address names the signed-in person. */
export const EVENTS_SOCKET = /\/api\/v1\/events(?:\?|$)/;

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface World {
  clarion: RunningServer;
  /** The origin the browser uses. */
  origin: string;
  /** The one-time sign-in link, rewritten to `origin`. */
  signInUrl: string;
  close(): Promise<void>;
}

/** `profilesEnv` may hold `CLARION_AGENT_PROFILES` for agents beyond the demo. */
export async function startWorld(
  options: ServerOptions = {},
  profilesEnv: NodeJS.ProcessEnv = {},
): Promise<World> {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarion-browser-'));
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    database: { driver: 'sqlite', dataDir },
    logLevel: 'silent',
    adminToken: ADMIN_TOKEN,
    publicOrigin: undefined,
    agentProfiles: loadAgentProfiles(profilesEnv),
  };
  const clarion = await startServer(config, silentLogger, options);
  const upstream = new URL(clarion.url);
  const front = await startFrontDoor(upstream);
  const origin = `http://127.0.0.1:${String((front.address() as { port: number }).port)}`;
  const signIn = new URL(clarion.signInUrl);
  return {
    clarion,
    origin,
    signInUrl: `${origin}${signIn.pathname}${signIn.search}`,
    async close() {
      await new Promise<void>((done) => {
        front.close(() => {
          done();
        });
        front.closeAllConnections();
      });
      await clarion.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function startFrontDoor(upstream: URL): Promise<Server> {
  const web = new Hono();
  registerWebApp(web, { root: WEB_ROOT });
  const serveWeb = getRequestListener(web.fetch);
  const sockets = new Set<{ destroy(): void }>();

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    if (!isReservedPath(path)) {
      void serveWeb(req, res);
      return;
    }
    const proxied = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    proxied.on('error', () => {
      res.destroy();
    });
    req.pipe(proxied);
  });

  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const target = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i] ?? ''}: ${req.rawHeaders[i + 1] ?? ''}`);
      }
      target.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) target.write(head);
      socket.pipe(target);
      target.pipe(socket);
    });
    sockets.add(target);
    sockets.add(socket);
    const end = () => {
      target.destroy();
      socket.destroy();
    };
    target.on('error', end);
    socket.on('error', end);
    target.on('close', end);
    socket.on('close', end);
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });

  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      done(server);
    });
  });
}

/** The worker's Chromium while it runs; a browser that crashed or was closed is launched anew. */
let running: Promise<Browser> | undefined;

function workerChromium(): Promise<Browser> {
  if (running) return running;
  const launched = chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
  running = launched;
  launched.then(
    (browser) => {
      browser.once('disconnected', () => {
        if (running === launched) running = undefined;
      });
    },
    () => {
      if (running === launched) running = undefined;
    },
  );
  return launched;
}

/**
 * Chromium for one suite: the test worker's one browser, which the files it
 * runs share in turn (the suite runs with `isolate: false`, so this module
 * lives as long as the worker), as a handle whose contexts come from and go
 * back to the worker's pool (`context-pool.ts`) and whose `close()` gives back
 * the contexts the suite still holds, leaving the browser running. A launch
 * costs about 1.3 s of CPU more than a context, and a context comes to a suite
 * as clean as a fresh profile, so a suite sees nothing of the one before.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await workerChromium();
  const held = new Set<BrowserContext>();
  const borrow = async (options: ContextOptions = {}) => {
    const context = await borrowContext(browser, options, () => held.delete(context));
    held.add(context);
    return context;
  };
  const suiteOwn: Partial<Browser> = {
    newContext: borrow,
    // Like Playwright's: the page owns its context, and closing one gives back the other.
    newPage: async (options) => {
      const context = await borrow(options);
      const page = await context.newPage();
      page.once('close', () => void context.close());
      return page;
    },
    contexts: () => [...held],
    close: async () => {
      await Promise.all([...held].map((context) => context.close()));
    },
  };
  return new Proxy(browser, {
    get(target, key) {
      if (Object.hasOwn(suiteOwn, key)) return suiteOwn[key as keyof Browser];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/**
 * A world and the worker's Chromium for the enclosing `describe`: started
 * before its tests and closed after them. Its members are read when a test
 * runs, not when it is defined.
 */
export function useWorld(options: ServerOptions = {}): {
  readonly world: World;
  readonly browser: Browser;
} {
  let started: { world: World; browser: Browser } | undefined;
  beforeAll(async () => {
    const [world, browser] = await Promise.all([startWorld(options), launchChromium()]);
    started = { world, browser };
  }, 120_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.world.close();
  });
  const current = () => {
    if (!started) throw new Error('the world starts in beforeAll');
    return started;
  };
  return {
    get world() {
      return current().world;
    },
    get browser() {
      return current().browser;
    },
  };
}

/** REST as a script would call it, with the admin bearer token. */
export async function api<T>(
  world: World,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${world.clarion.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${String(response.status)} ${await response.text()}`);
  // A 204 (a delete) has no body.
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A link the server printed for its own address, opened through the browser's origin. */
export function viaOrigin(world: World, link: string): string {
  return `${world.origin}${linkPath(link)}`;
}

/** A page in a new browser context, signed in as nobody: English, 30 s waits unless `options` say otherwise. */
export async function freshPage(browser: Browser, options: ContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', ...options });
  context.setDefaultTimeout(30_000);
  return context.newPage();
}

/** A fresh page signed in with `link`, handed over once its app is live. */
export async function signedInWith(
  world: World,
  browser: Browser,
  link: string,
  options: ContextOptions = {},
): Promise<Page> {
  const page = await freshPage(browser, options);
  await page.goto(viaOrigin(world, link));
  await page.waitForURL(`${world.origin}/`);
  // The sign-in page leaves for `/` once its POST is answered: wait until that app is up, so
  // the first key a test presses reaches it rather than a page on its way.
  await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor();
  return page;
}

/**
 * Chooses the page's language in its header. On a phone the picker is in the
 * account menu, which is opened for it and closed again, so that it covers
 * nothing the test goes on to use. Resolves once the page is in `language`:
 * its words load only when it is chosen.
 */
export async function chooseLanguage(page: Page, language: string): Promise<void> {
  const toggle = page.getByTestId('account-toggle');
  const inMenu = await toggle.isVisible();
  if (inMenu) await toggle.click();
  await page.getByTestId('language-switch').selectOption(language);
  if (inMenu) await toggle.click();
  await page.waitForFunction(`document.documentElement.lang === ${JSON.stringify(language)}`);
}

/**
 * A page signed in through a fresh one-time sign-in link: as `userId`, or as
 * the admin when it is absent (the world's own link works once).
 */
export async function signedInPage(
  world: World,
  browser: Browser,
  userId?: string,
  options: ContextOptions = {},
): Promise<Page> {
  const { url } = await api<{ url: string }>(
    world,
    'POST',
    '/api/v1/auth/sign-in-links',
    userId === undefined ? {} : { user_id: userId },
  );
  return signedInWith(world, browser, url, options);
}

export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** The admin signed in once with the world's own link: a state for later contexts to start from. */
export async function adminSignedInState(world: World, browser: Browser): Promise<StorageState> {
  const page = await signedInWith(world, browser, world.signInUrl);
  const state = await page.context().storageState();
  await page.context().close();
  return state;
}

export interface CreatedTask {
  task: { id: string; title: string };
  session: { id: string };
}

/**
 * A permission request in `created`'s session with options the test names, as
 * an agent that names its own would make it; resolves once it is awaiting.
 */
export async function namedOptionsConsent(
  world: World,
  created: CreatedTask,
  options: ConsentOption[],
): Promise<Extract<RequestResult, { ok: true }>> {
  const registry = world.clarion.turns.userInputs;
  const consent = registry.request({
    kind: 'consent',
    sessionId: created.session.id,
    taskId: created.task.id,
    profile: 'demo',
    toolKey: 'liar-tool',
    command: 'Run the liar tool',
    title: 'Run the liar tool',
    options,
  });
  if (!consent.ok) throw new Error('consent refused');
  await eventually(() => registry.get(consent.id)?.status === 'awaiting', 30_000);
  return consent;
}

/** A task whose first prompt drives the demo agent; resolves once its question is pending. */
export async function askingTask(
  world: World,
  title: string,
  prompt: string,
): Promise<CreatedTask> {
  const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const pending = await api<{ bundles: { session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    if (pending.bundles.some((bundle) => bundle.session_id === created.session.id)) return created;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`no question from ${prompt} within 30 s`);
}
