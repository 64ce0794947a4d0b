/**
 * Clicking a Web Push notification opens its item: the service worker's
 * `notificationclick` handler, run in a VM context with stand-ins for the
 * worker's `clients`. A headless browser cannot click a system notification
 * (no DevTools command does), so this drives the handler the way the browser
 * would; `pwa.test.ts` shows the same worker displaying pushes in Chromium.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';

const ORIGIN = 'https://clarion.example.test';

interface FakeWindow {
  readonly url: string;
  focused: boolean;
  navigatedTo: string | undefined;
  focus(): Promise<FakeWindow>;
  navigate(url: string): Promise<FakeWindow>;
}

function fakeWindow(url: string, navigable = true): FakeWindow {
  const window: FakeWindow = {
    url,
    focused: false,
    navigatedTo: undefined,
    focus() {
      window.focused = true;
      return Promise.resolve(window);
    },
    navigate(target: string) {
      if (!navigable) return Promise.reject(new TypeError('not a controlled client'));
      window.navigatedTo = target;
      return Promise.resolve(window);
    },
  };
  return window;
}

let source = '';

beforeAll(async () => {
  source = await readFile(join(import.meta.dirname, '../../web/public/sw.js'), 'utf8');
});

/** Loads the worker with `windows` open, clicks a notification whose data is `data`. */
async function click(windows: FakeWindow[], data: unknown) {
  const listeners = new Map<string, (event: unknown) => void>();
  const opened: string[] = [];
  const self = {
    location: { origin: ORIGIN },
    addEventListener(type: string, listener: (event: unknown) => void) {
      listeners.set(type, listener);
    },
    clients: {
      matchAll: () => Promise.resolve(windows),
      openWindow: (url: string) => {
        opened.push(url);
        return Promise.resolve(null);
      },
    },
  };
  runInContext(source, createContext({ self, URL, setTimeout }));
  let closed = false;
  const waited: Promise<unknown>[] = [];
  const handler = listeners.get('notificationclick');
  expect(handler).toBeTypeOf('function');
  handler?.({
    notification: {
      data,
      close: () => {
        closed = true;
      },
    },
    waitUntil: (promise: Promise<unknown>) => waited.push(promise),
  });
  await Promise.all(waited);
  return { closed, opened, waited: waited.length };
}

describe('clicking a pushed notification', () => {
  it('opens its item in a new window when the app is not open, and closes the notice', async () => {
    const clicked = await click([], { url: `${ORIGIN}/sessions/s-1` });
    expect(clicked).toEqual({ closed: true, opened: [`${ORIGIN}/sessions/s-1`], waited: 1 });
  });

  it('brings an open tab of the app forward and shows the item there', async () => {
    const other = fakeWindow('https://elsewhere.example/');
    const app = fakeWindow(`${ORIGIN}/`);
    const clicked = await click([other, app], { url: `${ORIGIN}/sessions/s-2` });
    expect(clicked.opened).toEqual([]);
    expect(app).toMatchObject({ focused: true, navigatedTo: `${ORIGIN}/sessions/s-2` });
    expect(other).toMatchObject({ focused: false, navigatedTo: undefined });
  });

  it('opens a window when the open tab cannot be navigated from the worker', async () => {
    const app = fakeWindow(`${ORIGIN}/settings`, false);
    const clicked = await click([app], { url: `${ORIGIN}/sessions/s-3` });
    expect(clicked.opened).toEqual([`${ORIGIN}/sessions/s-3`]);
  });

  it('opens only the app’s own pages: another origin or no URL opens the inbox', async () => {
    expect((await click([], { url: 'https://evil.example/x' })).opened).toEqual([`${ORIGIN}/`]);
    expect((await click([], undefined)).opened).toEqual([`${ORIGIN}/`]);
  });
});
