/**
 * Clarion's service worker: shows a Web Push notice as a notification, and
 * opens its item when the person clicks it. It caches nothing and handles
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
 * without anyone opening Settings. An event that names no old subscription
 * is left to the page, which renews from the endpoint it recorded.
 */
/* global self, URL, setTimeout, clearTimeout, fetch, AbortController */

/** `src/wire/constants.ts` `WEB_PUSH_RENEWAL_PATH`. */
const RENEWAL_PATH = '/api/v1/notification-channels/web-push/renewal';
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
 * Gives the server the subscription that replaced `old`, subscribing anew
 * with the old one's key when the browser made none. Nothing to renew
 * without the old endpoint: the server could not tell which channel.
 */
async function renewSubscription(old, renewed) {
  if (!old || typeof old.endpoint !== 'string') return;
  let subscription = renewed;
  if (!subscription) {
    const key = old.options ? old.options.applicationServerKey : null;
    if (!key) return;
    subscription = await bounded(() =>
      self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
    );
  }
  await bounded((signal) =>
    fetch(RENEWAL_PATH, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ old_endpoint: old.endpoint, subscription: subscription.toJSON() }),
      signal,
    }),
  );
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
