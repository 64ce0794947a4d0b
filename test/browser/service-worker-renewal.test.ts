/**
 * A browser that replaces its push subscription fires `pushsubscriptionchange`
 * in the service worker, which hands the new one to the server with the
 * browser's cookie: run in a VM context with stand-ins for the worker's
 * `fetch` and `pushManager`, since no DevTools command makes a browser
 * rotate a subscription. `pwa.test.ts` shows the same worker running in
 * Chromium; `test/notify/web-push-renewal.test.ts` the server's side.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { WEB_PUSH_RENEWAL_PATH } from '../../src/wire/index.js';
import {
  WORKER_RECORD_CACHE,
  WORKER_RECORD_PATH,
  type DeviceChannel,
} from '../../web/src/model/push-channel.js';
import { PUSH_STEP_TIMEOUT_MS } from '../../web/src/model/push-fault.js';

const ORIGIN = 'https://clarion.example.test';
const KEYS = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };

interface Sent {
  readonly url: string;
  readonly init: RequestInit;
}

function subscription(endpoint: string, applicationServerKey: ArrayBuffer | null = null) {
  return {
    endpoint,
    options: { userVisibleOnly: true, applicationServerKey },
    toJSON: () => ({ endpoint, expirationTime: null, keys: KEYS }),
  };
}

let source = '';

beforeAll(async () => {
  source = await readFile(join(import.meta.dirname, '../../web/public/sw.js'), 'utf8');
});

const SERVER_KEY = 'BServerKey';

/** Cache storage as the worker sees it: `WORKER_RECORD_CACHE` alone, keyed by path. */
function cacheStorage(recorded: DeviceChannel | undefined) {
  const entries = new Map<string, string>();
  if (recorded) entries.set(WORKER_RECORD_PATH, JSON.stringify(recorded));
  const cache = {
    match: (path: string) => {
      const body = entries.get(path);
      return Promise.resolve(body === undefined ? undefined : new Response(body));
    },
    put: async (path: string, response: Response) => {
      entries.set(path, await response.text());
    },
  };
  return {
    entries,
    caches: {
      open: (name: string) =>
        name === WORKER_RECORD_CACHE ? Promise.resolve(cache) : Promise.reject(new Error(name)),
    },
  };
}

/**
 * Loads the worker and fires `pushsubscriptionchange` with `event`'s
 * subscriptions; the page recorded `recorded` for this device, and the
 * server's renewal moves the channel to `movedTo` (a channel ID) when given.
 */
async function change(
  event: { oldSubscription?: unknown; newSubscription?: unknown },
  page: { recorded?: DeviceChannel; movedTo?: string } = {},
) {
  const listeners = new Map<string, (event: unknown) => void>();
  const sent: Sent[] = [];
  const subscribed: unknown[] = [];
  const storage = cacheStorage(page.recorded);
  const self = {
    location: { origin: ORIGIN },
    addEventListener(type: string, listener: (event: unknown) => void) {
      listeners.set(type, listener);
    },
    registration: {
      pushManager: {
        subscribe: (options: unknown) => {
          subscribed.push(options);
          return Promise.resolve(subscription(`${ORIGIN.replace('clarion', 'push')}/made-here`));
        },
      },
    },
  };
  const fetch = (url: string, init: RequestInit) => {
    sent.push({ url, init });
    const reply =
      url === '/api/v1/notification-settings'
        ? { web_push_public_key: SERVER_KEY }
        : page.movedTo === undefined
          ? {}
          : { channel: { id: page.movedTo } };
    return Promise.resolve(new Response(JSON.stringify(reply), { status: 200 }));
  };
  runInContext(
    source,
    createContext({
      self,
      URL,
      setTimeout,
      clearTimeout,
      fetch,
      AbortController,
      caches: storage.caches,
      Response,
    }),
  );
  const waited: Promise<unknown>[] = [];
  const handler = listeners.get('pushsubscriptionchange');
  expect(handler).toBeTypeOf('function');
  handler?.({
    oldSubscription: null,
    newSubscription: null,
    ...event,
    waitUntil: (promise: Promise<unknown>) => waited.push(promise),
  });
  await Promise.all(waited);
  const kept = storage.entries.get(WORKER_RECORD_PATH);
  const recorded = kept === undefined ? undefined : (JSON.parse(kept) as DeviceChannel);
  return { sent, subscribed, waited: waited.length, recorded };
}

describe('a push subscription the browser replaced', () => {
  it('is handed to the server with the cookie, naming the one it replaced', async () => {
    const changed = await change({
      oldSubscription: subscription('https://push.example/old'),
      newSubscription: subscription('https://push.example/new'),
    });
    expect(changed.waited).toBe(1);
    expect(changed.sent).toHaveLength(1);
    const [sent] = changed.sent;
    expect(sent?.url).toBe(WEB_PUSH_RENEWAL_PATH);
    expect(sent?.init).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(sent?.init.signal).toBeDefined();
    expect(JSON.parse(sent?.init.body as string)).toEqual({
      old_endpoint: 'https://push.example/old',
      subscription: { endpoint: 'https://push.example/new', expirationTime: null, keys: KEYS },
    });
  });

  it('subscribes anew with the old key when the browser made no new subscription', async () => {
    const key = new ArrayBuffer(65);
    const changed = await change({
      oldSubscription: subscription('https://push.example/old', key),
    });
    expect(changed.subscribed).toEqual([{ userVisibleOnly: true, applicationServerKey: key }]);
    expect(JSON.parse(changed.sent[0]?.init.body as string)).toMatchObject({
      old_endpoint: 'https://push.example/old',
      subscription: { endpoint: 'https://push.example.test/made-here' },
    });
  });

  it('sends nothing when the event names no old subscription and the page recorded none', async () => {
    const changed = await change({ newSubscription: subscription('https://push.example/new') });
    expect(changed.sent).toEqual([]);
  });

  it('renews the channel the page recorded when the event names no old subscription', async () => {
    const changed = await change(
      { newSubscription: subscription('https://push.example/new') },
      { recorded: { endpoint: 'https://push.example/old', channelId: 'ch-1' }, movedTo: 'ch-1' },
    );
    expect(changed.sent).toHaveLength(1);
    const [sent] = changed.sent;
    expect(sent?.url).toBe(WEB_PUSH_RENEWAL_PATH);
    expect(sent?.init).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(JSON.parse(sent?.init.body as string)).toEqual({
      old_endpoint: 'https://push.example/old',
      subscription: { endpoint: 'https://push.example/new', expirationTime: null, keys: KEYS },
    });
    // The copy follows the channel, so the next replacement is renewed from the new endpoint.
    expect(changed.recorded).toEqual({ endpoint: 'https://push.example/new', channelId: 'ch-1' });
  });

  it('subscribes with the server’s key when the event names neither subscription', async () => {
    const changed = await change(
      {},
      { recorded: { endpoint: 'https://push.example/old', channelId: 'ch-1' }, movedTo: 'ch-1' },
    );
    expect(changed.subscribed).toEqual([
      { userVisibleOnly: true, applicationServerKey: SERVER_KEY },
    ]);
    expect(changed.sent.map((sent) => sent.url)).toEqual([
      '/api/v1/notification-settings',
      WEB_PUSH_RENEWAL_PATH,
    ]);
    expect(JSON.parse(changed.sent[1]?.init.body as string)).toMatchObject({
      old_endpoint: 'https://push.example/old',
      subscription: { endpoint: 'https://push.example.test/made-here' },
    });
    expect(changed.recorded).toEqual({
      endpoint: 'https://push.example.test/made-here',
      channelId: 'ch-1',
    });
  });

  it('keeps the record as it was when the server moved no channel', async () => {
    const recorded = { endpoint: 'https://push.example/old', channelId: 'ch-1' };
    const changed = await change(
      { newSubscription: subscription('https://push.example/new') },
      { recorded },
    );
    expect(changed.sent).toHaveLength(1);
    expect(changed.recorded).toEqual(recorded);
  });

  it('bounds each step as the page does', () => {
    expect(source).toContain(
      `const STEP_TIMEOUT_MS = ${PUSH_STEP_TIMEOUT_MS.toLocaleString('en-US').replace(/,/g, '_')};`,
    );
    expect(source).toContain(`const RENEWAL_PATH = '${WEB_PUSH_RENEWAL_PATH}';`);
  });

  it('reads the page’s record where the page keeps it', () => {
    expect(source).toContain(`const RECORD_CACHE = '${WORKER_RECORD_CACHE}';`);
    expect(source).toContain(`const RECORD_PATH = '${WORKER_RECORD_PATH}';`);
  });
});
