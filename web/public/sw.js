/**
 * Clarion's service worker: shows a Web Push notice as a notification, and
 * opens its item when the person clicks it. It caches no page and handles
 * no fetch, so the app is always the one the server serves now.
 *
 * A message is the JSON of `src/wire/web-push.ts` (`webPushMessage`):
 * `{ event, kind, title, body, url, tag }`. One tag per item: a reminder
 * replaces the first notice, and `answered` removes whatever the tag shows.
 * Browsers expect every push to show something (Safari withdraws the
 * subscription otherwise), so `answered` first replaces the notice with a
 * silent one of the same tag, then closes it.
 *
 * A browser may replace its push subscription (`pushsubscriptionchange`,
 * on phones above all): the worker hands the new one to the server at once
 * (`WEB_PUSH_RENEWAL_PATH`, with the browser's cookie, as the page's calls
 * go), so the channel made from the old one goes on reaching this device
 * without anyone opening Settings. Browsers may fire it naming no old
 * subscription: the channel is then found by the endpoint the page recorded
 * for this device (a copy in Cache storage, `RECORD_CACHE`), and the copy
 * follows each renewal, so a device renewed here is renewed again next time.
 */
/* global self, URL, setTimeout, clearTimeout, fetch, AbortController, caches, Response */

/** `src/wire/constants.ts` `WEB_PUSH_RENEWAL_PATH`. */
const RENEWAL_PATH = '/api/v1/notification-channels/web-push/renewal';
/** Where the server says its VAPID key (`web_push_public_key`), for a subscription made here. */
const SETTINGS_PATH = '/api/v1/notification-settings';
/** `web/src/model/push-channel.ts` `WORKER_RECORD_CACHE` and `WORKER_RECORD_PATH`. */
const RECORD_CACHE = 'clarion-push-device';
const RECORD_PATH = '/push-device-channel';
/** `web/src/model/push-fault.ts` `PUSH_STEP_TIMEOUT_MS`: every step is bounded. */
const STEP_TIMEOUT_MS = 30_000;

self.addEventListener('install', () => {
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  event.waitUntil(showPush(readMessage(event.data)));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data;
  event.waitUntil(openItem(data && typeof data.url === 'string' ? data.url : '/'));
});

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(renewSubscription(event.oldSubscription, event.newSubscription));
});

/**
 * Gives the server the subscription that replaced `old` (or, when the event
 * names none, the one recorded for this device), subscribing anew when the
 * browser made none: with the old one's key, or the server's. Nothing to
 * renew without an old endpoint: the server could not tell which channel.
 */
async function renewSubscription(old, renewed) {
  const named = old && typeof old.endpoint === 'string' ? old.endpoint : null;
  const oldEndpoint = named ?? (await recordedEndpoint());
  if (!oldEndpoint) return;
  let subscription = renewed;
  if (!subscription) {
    const key =
      (old && old.options ? old.options.applicationServerKey : null) ?? (await serverKey());
    if (!key) return;
    subscription = await bounded(() =>
      self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
    );
  }
  const response = await bounded((signal) =>
    fetch(RENEWAL_PATH, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ old_endpoint: oldEndpoint, subscription: subscription.toJSON() }),
      signal,
    }),
  );
  if (response.ok) await record(subscription.endpoint, await response.json().catch(() => null));
}

/** The endpoint of the subscription the page recorded a channel for, if any. */
async function recordedEndpoint() {
  try {
    const cache = await bounded(() => caches.open(RECORD_CACHE));
    const found = await bounded(() => cache.match(RECORD_PATH));
    const saved = found ? await found.json() : null;
    return saved && typeof saved.endpoint === 'string' && saved.endpoint !== ''
      ? saved.endpoint
      : null;
  } catch {
    // Unreadable (storage cleared or refused): as if nothing was recorded.
    return null;
  }
}

/** The record follows the channel to `endpoint`, in the page's form: `{ endpoint, channelId }`. */
async function record(endpoint, reply) {
  const channelId = reply && reply.channel ? reply.channel.id : null;
  if (typeof channelId !== 'string') return;
  const cache = await bounded(() => caches.open(RECORD_CACHE));
  const body = JSON.stringify({ endpoint, channelId });
  await bounded(() =>
    cache.put(RECORD_PATH, new Response(body, { headers: { 'content-type': 'application/json' } })),
  );
}

/** The server's VAPID public key (base64url, as `subscribe` takes it), or null. */
async function serverKey() {
  const response = await bounded((signal) =>
    fetch(SETTINGS_PATH, { credentials: 'same-origin', signal }),
  );
  if (!response.ok) return null;
  const settings = await response.json();
  return settings && typeof settings.web_push_public_key === 'string'
    ? settings.web_push_public_key
    : null;
}

/** `step(signal)`, given up (and aborted) after `STEP_TIMEOUT_MS`. */
async function bounded(step) {
  const abort = new AbortController();
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error('timed out'));
    }, STEP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([step(abort.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}

function readMessage(data) {
  try {
    const message = data ? data.json() : undefined;
    if (message && typeof message === 'object' && typeof message.tag === 'string') return message;
  } catch {
    // Not JSON: shown as a plain notice below.
  }
  return undefined;
}

async function showPush(message) {
  if (message === undefined) {
    await self.registration.showNotification('Clarion', {
      body: 'An agent needs you.',
      tag: 'clarion',
      data: { url: '/' },
    });
    return;
  }
  const title =
    typeof message.title === 'string' && message.title !== '' ? message.title : 'Clarion';
  const body = typeof message.body === 'string' ? message.body : '';
  if (message.event === 'answered') {
    await self.registration.showNotification(title, { body, tag: message.tag, silent: true });
    await closeTag(message.tag);
    return;
  }
  await self.registration.showNotification(title, {
    body,
    tag: message.tag,
    renotify: message.event === 'reminder',
    icon: '/icon-192.png',
    badge: '/favicon-32.png',
    data: { url: sameOrigin(message.url) },
  });
}

/**
 * Closes what `tag` shows. The notice just shown may not be listed at once,
 * so it looks again a few times (about a second in all).
 */
async function closeTag(tag) {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const shown = await self.registration.getNotifications({ tag });
    if (shown.length === 0 && attempt > 0) return;
    for (const notification of shown) notification.close();
    await new Promise((resolve) => {
      setTimeout(resolve, 100);
    });
  }
}

/** Only this app's own pages open from a notification. */
function sameOrigin(url) {
  try {
    const target = new URL(typeof url === 'string' ? url : '/', self.location.origin);
    return target.origin === self.location.origin ? target.href : self.location.origin + '/';
  } catch {
    return self.location.origin + '/';
  }
}

async function openItem(url) {
  const target = sameOrigin(url);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (open) {
    try {
      const focused = await open.focus();
      await focused.navigate(target);
      return;
    } catch {
      // An uncontrolled tab cannot be navigated from here: open a window instead.
    }
  }
  await self.clients.openWindow(target);
}
