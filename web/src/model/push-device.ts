/**
 * Web Push on this device: what the browser allows, and turning it on.
 * Turning on asks permission first (inside the click, as Safari requires),
 * registers `/sw.js`, subscribes with the server's VAPID public key and
 * gives the subscription to the server as a `web_push` channel. A step that
 * fails leaves no half state behind: a subscription the server did not take
 * is dropped again.
 */
import type {
  NewChannelBody,
  NewChannelReply,
  NotificationSettingsReply,
  PushSubscriptionJson,
} from '../../../src/wire/index.js';
import { request, type FetchLike } from './api.js';
import { deviceName, type PushEnvironment } from './push-support.js';

export function currentEnvironment(): PushEnvironment {
  return {
    isSecureContext: window.isSecureContext,
    hasServiceWorker: 'serviceWorker' in navigator,
    hasPushManager: 'PushManager' in window,
    permission: 'Notification' in window ? Notification.permission : undefined,
  };
}

export const SERVICE_WORKER_URL = '/sw.js';
/**
 * The longest one step (the service worker's activation, the push service's
 * subscription) may take: a browser that cannot reach its push service may
 * otherwise leave the button spinning for minutes.
 */
export const PUSH_STEP_TIMEOUT_MS = 30_000;

/** The subscription this browser holds for Clarion, if any. */
export async function existingSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return registration ? registration.pushManager.getSubscription() : null;
}

export type TurnOnResult =
  | { ok: true }
  | { ok: false; reason: 'dismissed' | 'blocked' | 'unavailable' | 'failed'; error?: string };

export async function turnOnPush(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
): Promise<TurnOnResult> {
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return { ok: false, reason: 'blocked' };
  if (permission !== 'granted') return { ok: false, reason: 'dismissed' };

  let registration: ServiceWorkerRegistration;
  try {
    await navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' });
    registration = await within(navigator.serviceWorker.ready, 'the service worker');
  } catch (error) {
    return { ok: false, reason: 'failed', error: messageOf(error) };
  }
  const settings = await request<NotificationSettingsReply>(
    fetchImpl,
    '/api/v1/notification-settings',
  );
  if (!settings.ok) {
    return settings.kind === 'http' && settings.status === 404
      ? { ok: false, reason: 'unavailable' }
      : { ok: false, reason: 'failed', error: settings.error };
  }
  let subscription: PushSubscription;
  try {
    subscription = await within(
      subscribe(registration, settings.value.web_push_public_key),
      'the push service',
    );
  } catch (error) {
    return { ok: false, reason: 'failed', error: messageOf(error) };
  }
  const body: NewChannelBody = {
    kind: 'web_push',
    name: deviceName(navigator.userAgent),
    // The browser's own JSON form is the wire's `pushSubscription`; the server checks it.
    subscription: subscription.toJSON() as PushSubscriptionJson,
  };
  const added = await request<NewChannelReply>(fetchImpl, '/api/v1/notification-channels', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!added.ok) {
    await subscription.unsubscribe().catch(() => false);
    return { ok: false, reason: 'failed', error: added.error };
  }
  return { ok: true };
}

/** A subscription made for another server key cannot be reused: it is replaced. */
async function subscribe(
  registration: ServiceWorkerRegistration,
  publicKey: string,
): Promise<PushSubscription> {
  const options = { userVisibleOnly: true, applicationServerKey: base64UrlBytes(publicKey) };
  const old = await registration.pushManager.getSubscription();
  if (old !== null) await old.unsubscribe();
  return registration.pushManager.subscribe(options);
}

export async function turnOffPush(): Promise<void> {
  const subscription = await existingSubscription();
  await subscription?.unsubscribe();
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function within<T>(step: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${what} did not answer within ${String(PUSH_STEP_TIMEOUT_MS / 1000)} s`));
    }, PUSH_STEP_TIMEOUT_MS);
    step.then(resolve, reject).finally(() => {
      clearTimeout(timer);
    });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
