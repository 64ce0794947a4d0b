/**
 * Browser contexts handed back by one suite and handed out to the next. A new
 * context's first page is a new renderer process: signing in and reaching a
 * live inbox cost 1.13 s of CPU in a new context and 0.38 s in a cleaned one
 * (measured on this machine), and the browser suites open several hundred.
 *
 * A context closed by its test comes back cleaned to what a new one holds: no
 * cookies, no storage (local, session, IndexedDB, caches, service workers) in
 * any origin its pages visited, no permissions but the ones it was created
 * with, no routes or listeners a test added, one page at `about:blank`. A
 * context a test changed in a way that cannot be undone (an init script, an
 * exposed binding, a clock, a WebSocket route, emulated media, a resized
 * viewport, a CDP session, a crash) is closed for real, as is one whose
 * cleaning fails or outlasts its bound.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

export type ContextOptions = NonNullable<Parameters<Browser['newContext']>[0]>;

/** Contexts kept idle per worker; each holds a renderer process. */
const IDLE_LIMIT = 6;
const CLEANING_BOUND_MS = 10_000;
/** Playwright's own default, which a test's `context.setDefaultTimeout` replaced. */
const PLAYWRIGHT_DEFAULT_TIMEOUT_MS = 30_000;

const IRREVERSIBLE = {
  context: [
    'addInitScript',
    'exposeBinding',
    'exposeFunction',
    'newCDPSession',
    'routeFromHAR',
    'routeWebSocket',
    'setDefaultNavigationTimeout',
    'setExtraHTTPHeaders',
    'setGeolocation',
    'setHTTPCredentials',
    'setOffline',
  ],
  page: [
    'addInitScript',
    'emulateMedia',
    'exposeBinding',
    'exposeFunction',
    'routeFromHAR',
    'routeWebSocket',
    'setDefaultNavigationTimeout',
    'setDefaultTimeout',
    'setExtraHTTPHeaders',
    'setViewportSize',
  ],
  clock: ['fastForward', 'install', 'pauseAt', 'resume', 'runFor', 'setFixedTime', 'setSystemTime'],
};

type Listeners = Map<string | symbol, unknown[]>;

interface Pooled {
  readonly context: BrowserContext;
  readonly key: string;
  readonly options: ContextOptions;
  readonly listeners: Listeners;
  /** The pages this module opened, with the listeners they had before a test saw them. */
  readonly pages: Map<Page, Listeners>;
  readonly origins: Set<string>;
  /** The context's own methods, which the borrower sees replaced. */
  readonly real: Pick<BrowserContext, 'close' | 'newCDPSession' | 'newPage' | 'setDefaultTimeout'>;
  state: 'lent' | 'returning' | 'idle';
  tainted: boolean;
  timeoutChanged: boolean;
  idlePage: Page | undefined;
  returning: Promise<void> | undefined;
  /** Called once the borrower closed it: the suite that borrowed it stops tracking it. */
  onReturn: (() => void) | undefined;
}

const idle: Pooled[] = [];

/**
 * A context as `browser.newContext(options)` would make it, from the pool when
 * one with the same options is idle. `onReturn` runs when its borrower closes it.
 */
export async function borrowContext(
  browser: Browser,
  options: ContextOptions,
  onReturn: () => void,
): Promise<BrowserContext> {
  const { storageState, ...rest } = options;
  const key = keyOf(rest);
  const reusable = typeof storageState !== 'string' && (storageState?.origins.length ?? 0) === 0;
  for (let at = idle.length - 1; at >= 0; at--)
    if (idle[at]?.context.browser()?.isConnected() !== true) idle.splice(at, 1);
  const at = reusable ? idle.findIndex((pooled) => pooled.key === key) : -1;
  let pooled: Pooled;
  if (at >= 0) {
    pooled = idle.splice(at, 1)[0] as Pooled;
    if (typeof storageState === 'object') await pooled.context.addCookies(storageState.cookies);
  } else {
    pooled = instrument(await browser.newContext(options), key, rest);
  }
  pooled.state = 'lent';
  pooled.onReturn = onReturn;
  return pooled.context;
}

function keyOf(options: object): string {
  return JSON.stringify(options, (_, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}

function instrument(context: BrowserContext, key: string, options: ContextOptions): Pooled {
  const pooled: Pooled = {
    context,
    key,
    options,
    listeners: listenersOf(context),
    pages: new Map(),
    origins: new Set(),
    real: {
      close: context.close.bind(context),
      newCDPSession: context.newCDPSession.bind(context),
      newPage: context.newPage.bind(context),
      setDefaultTimeout: context.setDefaultTimeout.bind(context),
    },
    state: 'lent',
    tainted: false,
    timeoutChanged: false,
    idlePage: undefined,
    returning: undefined,
    onReturn: undefined,
  };
  taintOn(context, IRREVERSIBLE.context, pooled);
  taintOn(context.clock, IRREVERSIBLE.clock, pooled);
  override(context, 'setDefaultTimeout', (timeout: number) => {
    pooled.timeoutChanged = true;
    pooled.real.setDefaultTimeout(timeout);
  });
  override(context, 'newPage', async () => {
    const page = pooled.idlePage ?? (await openPage(pooled));
    pooled.idlePage = undefined;
    return page;
  });
  override(context, 'close', () => giveBack(pooled));
  return pooled;
}

async function openPage(pooled: Pooled): Promise<Page> {
  const page = await pooled.real.newPage();
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame() || !URL.canParse(frame.url())) return;
    const { origin, protocol } = new URL(frame.url());
    if (protocol === 'http:' || protocol === 'https:') pooled.origins.add(origin);
  });
  page.once('crash', () => {
    pooled.tainted = true;
  });
  page.once('close', () => pooled.pages.delete(page));
  taintOn(page, IRREVERSIBLE.page, pooled);
  taintOn(page.clock, IRREVERSIBLE.clock, pooled);
  pooled.pages.set(page, listenersOf(page));
  return page;
}

/** A borrower's `close()`: idempotent, like Playwright's, and done once the context is clean or gone. */
function giveBack(pooled: Pooled): Promise<void> {
  if (pooled.state !== 'lent') return pooled.returning ?? Promise.resolve();
  pooled.state = 'returning';
  pooled.onReturn?.();
  pooled.onReturn = undefined;
  pooled.returning = (async () => {
    const clean = await withinBound(cleaned(pooled));
    pooled.returning = undefined;
    if (!clean) {
      await pooled.real.close().catch(() => undefined);
      return;
    }
    pooled.state = 'idle';
    idle.push(pooled);
    const evicted = idle.length > IDLE_LIMIT ? idle.shift() : undefined;
    if (evicted) await evicted.real.close().catch(() => undefined);
  })();
  return pooled.returning;
}

async function cleaned(pooled: Pooled): Promise<boolean> {
  const { context } = pooled;
  if (pooled.tainted) return false;
  const pages = context.pages();
  const kept = pages.find((page) => pooled.pages.has(page));
  await Promise.all(pages.filter((page) => page !== kept).map((page) => page.close()));
  removeAdded(context, pooled.listeners);
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  const page = kept ?? (await openPage(pooled));
  removeAdded(page, pooled.pages.get(page) ?? new Map<string, unknown[]>());
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  // Away first: the app that ran there could write its storage again while it unloads.
  await page.goto('about:blank');
  if (pooled.origins.size > 0) {
    const cdp = await pooled.real.newCDPSession(page);
    for (const origin of pooled.origins)
      await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
    await cdp.detach();
    pooled.origins.clear();
  }
  await context.clearCookies();
  await context.clearPermissions();
  if (pooled.options.permissions) await context.grantPermissions(pooled.options.permissions);
  if (pooled.timeoutChanged) {
    pooled.real.setDefaultTimeout(PLAYWRIGHT_DEFAULT_TIMEOUT_MS);
    pooled.timeoutChanged = false;
  }
  pooled.idlePage = page;
  return true;
}

async function withinBound(work: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((done) => {
    timer = setTimeout(() => {
      done(false);
    }, CLEANING_BOUND_MS);
  });
  try {
    return await Promise.race([work.catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Emitter {
  eventNames(): (string | symbol)[];
  listeners(event: string | symbol): unknown[];
  removeListener(event: string | symbol, listener: (...args: unknown[]) => void): unknown;
}

/** Playwright's objects are event emitters at run time; its typings declare only part of that. */
function listenersOf(target: Page | BrowserContext): Listeners {
  const emitter = target as unknown as Emitter;
  return new Map(emitter.eventNames().map((event) => [event, emitter.listeners(event)]));
}

/** Removes what a test added with `on`/`once` (a `once` listener is listed as its wrapper). */
function removeAdded(target: Page | BrowserContext, before: Listeners): void {
  const emitter = target as unknown as Emitter;
  for (const event of emitter.eventNames()) {
    const kept = before.get(event) ?? [];
    for (const listener of emitter.listeners(event))
      if (!kept.includes(listener))
        emitter.removeListener(event, listener as (...args: unknown[]) => void);
  }
}

function taintOn(target: object, methods: readonly string[], pooled: Pooled): void {
  for (const name of methods) {
    const original = Reflect.get(target, name) as ((...args: unknown[]) => unknown) | undefined;
    if (typeof original !== 'function') continue;
    override(target, name, (...args: unknown[]) => {
      pooled.tainted = true;
      return original.apply(target, args);
    });
  }
}

function override(target: object, name: string, value: (...args: never[]) => unknown): void {
  Object.defineProperty(target, name, { value, configurable: true, writable: true });
}
