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

/** Loads the worker and fires `pushsubscriptionchange` with `event`'s subscriptions. */
async function change(event: { oldSubscription?: unknown; newSubscription?: unknown }) {
  const listeners = new Map<string, (event: unknown) => void>();
  const sent: Sent[] = [];
  const subscribed: unknown[] = [];
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
    return Promise.resolve(new Response('{}', { status: 200 }));
  };
  runInContext(
    source,
    createContext({ self, URL, setTimeout, clearTimeout, fetch, AbortController }),
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
  return { sent, subscribed, waited: waited.length };
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

  it('sends nothing when the event names no old subscription: the page renews then', async () => {
    const changed = await change({ newSubscription: subscription('https://push.example/new') });
    expect(changed.sent).toEqual([]);
  });

  it('bounds each step as the page does', () => {
    expect(source).toContain(
      `const STEP_TIMEOUT_MS = ${PUSH_STEP_TIMEOUT_MS.toLocaleString('en-US').replace(/,/g, '_')};`,
    );
    expect(source).toContain(`const RENEWAL_PATH = '${WEB_PUSH_RENEWAL_PATH}';`);
  });
});
