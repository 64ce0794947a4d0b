/**
 * Web Push on this device: what the browser allows, turning it on and off,
 * and whether it is on. Turning on asks permission first (inside the click,
 * as Safari requires), registers `/sw.js`, subscribes with the server's
 * VAPID public key and gives the subscription to the server as a `web_push`
 * channel, remembering which channel it became (`push-channel.ts`). Turning
 * off deletes that channel before the browser unsubscribes, and turning on
 * again first deletes the channel of the subscription it replaces, so one
 * device holds at most one channel. A step that fails leaves no half state
 * behind: a subscription the server did not take is dropped again. Every
 * step, the server's calls included, ends within `PUSH_STEP_TIMEOUT_MS`.
 *
 * The service worker gets a copy of the record whenever the page writes or
 * finds it (`WORKER_RECORD_CACHE`), so it can renew the channel when the
 * browser replaces the subscription without naming the old one.
 */
import type { NewChannelBody, PushSubscriptionJson } from '../../../src/wire/index.js';
import type { ApiFailure, ApiResult, FetchLike } from './api.js';
import { notificationsApi } from './notifications-api.js';
import {
  channelOfSubscription,
  DEVICE_CHANNEL_KEY,
  parseDeviceChannel,
  pushDeviceOn,
  serializeDeviceChannel,
  WORKER_RECORD_CACHE,
  WORKER_RECORD_PATH,
  type DeviceChannel,
} from './push-channel.js';
import {
  browserPushFaultOf,
  PUSH_STEP_TIMEOUT_MS,
  PushStepTimeout,
  SIGN_OUT_PUSH_WAIT_MS,
  type BrowserPushFault,
  type PushStep,
} from './push-fault.js';
import { deviceName, pushSupport, type PushEnvironment } from './push-support.js';
import { pageFetch } from './page-fetch.js';

export function currentEnvironment(): PushEnvironment {
  return {
    isSecureContext: window.isSecureContext,
    hasServiceWorker: 'serviceWorker' in navigator,
    hasPushManager: 'PushManager' in window,
    permission: 'Notification' in window ? Notification.permission : undefined,
  };
}

export const SERVICE_WORKER_URL = '/sw.js';
export { PUSH_STEP_TIMEOUT_MS };

/** The server's channel calls, each bounded like every other step. */
type DeviceApi = ReturnType<typeof notificationsApi>;

function deviceApi(fetchImpl: FetchLike): DeviceApi {
  return notificationsApi(fetchImpl, { timeoutMs: PUSH_STEP_TIMEOUT_MS });
}

/** The subscription this browser holds for Clarion, if any. */
export async function existingSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * Why a step failed: the server's reply, or the browser's refusal of a push
 * step by its error's name; the page says either in its language.
 */
export type PushFault = ApiFailure | BrowserPushFault;

export type DeviceReading =
  { ok: true; on: boolean } | { ok: false; reason: 'unavailable' | 'failed'; error?: PushFault };

/**
 * Whether this device gets notifications: the browser's subscription and
 * the server's channel list together. The server is asked only when the
 * browser holds a subscription this device recorded a channel for, or one
 * that replaced it: the browser rotated it (`pushsubscriptionchange`), so
 * the channel is moved to it first (`renewRecord`), as the service worker
 * does when it hears of it.
 */
export async function readPushDevice(fetchImpl: FetchLike = pageFetch): Promise<DeviceReading> {
  let subscription: PushSubscription | null;
  try {
    subscription = await within(existingSubscription(), 'service_worker');
  } catch (error) {
    return { ok: false, reason: 'failed', error: browserPushFaultOf(error) };
  }
  const permission = Notification.permission;
  let record = loadDeviceChannel();
  if (permission === 'granted' && subscription !== null && record !== null) {
    const renewed = await renewRecord(deviceApi(fetchImpl), record, subscription);
    if (!renewed.ok) return { ok: false, reason: 'failed', error: renewed.error };
    record = renewed.record;
  }
  const facts = { permission, endpoint: subscription?.endpoint ?? null, record };
  if (
    facts.permission !== 'granted' ||
    channelOfSubscription(facts.record, facts.endpoint) === null
  ) {
    return { ok: true, on: false };
  }
  const listed = await deviceApi(fetchImpl).channels();
  if (!listed.ok) {
    return listed.kind === 'http' && listed.status === 404
      ? { ok: false, reason: 'unavailable' }
      : { ok: false, reason: 'failed', error: listed };
  }
  const on = pushDeviceOn({ ...facts, channels: listed.value.channels });
  // A device turned on before the worker kept a copy gets one the next time it is read.
  if (on && facts.record !== null) await shareWithWorker(facts.record);
  return { ok: true, on };
}

/**
 * Moves this device's channel to the subscription its browser replaced, on
 * whatever page is open: the service worker does so when it hears of the
 * change, but may not have reached the server then (offline, or signed out
 * at the time), and a person who never opens Settings would hear nothing
 * more. Asks the server only when the browser's subscription is not the
 * one recorded; a failure is left for the next page load, or Settings.
 */
export async function renewPushDevice(fetchImpl: FetchLike = pageFetch): Promise<void> {
  if (pushSupport(currentEnvironment()) !== 'ready' || Notification.permission !== 'granted') {
    return;
  }
  const record = loadDeviceChannel();
  if (record === null) return;
  let subscription: PushSubscription | null;
  try {
    subscription = await within(existingSubscription(), 'service_worker');
  } catch {
    // No worker to ask: nothing to renew from here.
    return;
  }
  if (subscription !== null) await renewRecord(deviceApi(fetchImpl), record, subscription);
}

/**
 * The record of this device's channel, moved to `subscription` when the
 * browser replaced the one it names: the server moves the channel (or finds
 * it moved by the service worker already) and the record follows. A channel
 * no longer there (turned off, removed in Settings) leaves the record as it
 * is, so the device reads as off.
 */
async function renewRecord(
  api: DeviceApi,
  record: DeviceChannel,
  subscription: PushSubscription,
): Promise<{ ok: true; record: DeviceChannel } | { ok: false; error: PushFault }> {
  if (record.endpoint === subscription.endpoint) return { ok: true, record };
  const renewed = await api.renewWebPush({
    old_endpoint: record.endpoint,
    subscription: subscription.toJSON() as PushSubscriptionJson,
  });
  if (!renewed.ok) {
    return renewed.kind === 'http' && renewed.status === 404
      ? { ok: true, record }
      : { ok: false, error: renewed };
  }
  const next = { endpoint: subscription.endpoint, channelId: renewed.value.channel.id };
  try {
    saveDeviceChannel(next);
  } catch (error) {
    return { ok: false, error: browserPushFaultOf(error) };
  }
  await shareWithWorker(next);
  return { ok: true, record: next };
}

export type TurnOnResult =
  | { ok: true }
  | { ok: false; reason: 'dismissed' | 'blocked' | 'unavailable' | 'failed'; error?: PushFault };

export async function turnOnPush(fetchImpl: FetchLike = pageFetch): Promise<TurnOnResult> {
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return { ok: false, reason: 'blocked' };
  if (permission !== 'granted') return { ok: false, reason: 'dismissed' };

  let registration: ServiceWorkerRegistration;
  try {
    // Its script's fetch may hang on a network that swallows it: bounded like every step.
    await within(
      navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' }),
      'service_worker',
    );
    registration = await within(navigator.serviceWorker.ready, 'service_worker');
  } catch (error) {
    return { ok: false, reason: 'failed', error: browserPushFaultOf(error) };
  }
  const api = deviceApi(fetchImpl);
  const settings = await api.settings();
  if (!settings.ok) {
    return settings.kind === 'http' && settings.status === 404
      ? { ok: false, reason: 'unavailable' }
      : { ok: false, reason: 'failed', error: settings };
  }
  // The subscription made below replaces any this browser holds; its channel goes first, so
  // turning on again never leaves a dead channel behind nor meets the per-person limit.
  const replaced = await forgetChannel(api);
  if (!replaced.ok) return { ok: false, reason: 'failed', error: replaced.error };
  let subscription: PushSubscription;
  try {
    subscription = await within(
      subscribe(registration, settings.value.web_push_public_key),
      'push_service',
    );
  } catch (error) {
    return { ok: false, reason: 'failed', error: browserPushFaultOf(error) };
  }
  const body: NewChannelBody = {
    kind: 'web_push',
    name: deviceName(navigator.userAgent),
    // The browser's own JSON form is the wire's `pushSubscription`; the server checks it.
    subscription: subscription.toJSON() as PushSubscriptionJson,
  };
  const added = await api.addChannel(body);
  if (!added.ok) {
    await dropSubscription(subscription);
    return { ok: false, reason: 'failed', error: added };
  }
  const record = { endpoint: subscription.endpoint, channelId: added.value.channel.id };
  try {
    saveDeviceChannel(record);
  } catch (error) {
    // Unrecorded, the channel could never be found again to turn off: take it back.
    await deleteChannel(api, record.channelId);
    await dropSubscription(subscription);
    return { ok: false, reason: 'failed', error: browserPushFaultOf(error) };
  }
  await shareWithWorker(record);
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

export type TurnOffResult = { ok: true } | { ok: false; error: PushFault };

/**
 * Deletes this device's channel, then unsubscribes the browser. A channel
 * the server could not delete keeps the subscription too, so the device
 * still reads as on and "turn off" can be pressed again.
 */
export async function turnOffPush(fetchImpl: FetchLike = pageFetch): Promise<TurnOffResult> {
  let subscription: PushSubscription | null;
  try {
    subscription = await within(existingSubscription(), 'service_worker');
  } catch (error) {
    return { ok: false, error: browserPushFaultOf(error) };
  }
  const forgotten = await forgetChannel(deviceApi(fetchImpl));
  if (!forgotten.ok) return forgotten;
  if (subscription === null) return { ok: true };
  try {
    await within(subscription.unsubscribe(), 'push_service');
  } catch (error) {
    return { ok: false, error: browserPushFaultOf(error) };
  }
  return { ok: true };
}

/**
 * This device's notifications once its sign-out ended on the server. That end
 * took the device's channel with it (the store's cascade), so what is left is
 * the browser's part: its subscription, and the record of the channel. Not
 * before: a sign-out the server refused leaves the person signed in, and
 * their device must go on hearing of their items. Best effort, and never
 * longer than `SIGN_OUT_PUSH_WAIT_MS`.
 */
export async function forgetPushAfterSignOut(): Promise<void> {
  const forget = async () => {
    clearDeviceChannel();
    await shareWithWorker(null);
    const subscription = await within(existingSubscription(), 'service_worker');
    if (subscription !== null) await within(subscription.unsubscribe(), 'push_service');
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SIGN_OUT_PUSH_WAIT_MS);
  });
  try {
    // Storage that cannot be written, or a browser without push: nothing of it to undo here.
    await Promise.race([forget().catch(() => undefined), waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Deletes the channel this device recorded, if any, and the record. Every
 * record names a subscription this browser made, the current one or one it
 * replaced, so its channel is this device's either way.
 */
async function forgetChannel(api: DeviceApi): Promise<TurnOffResult> {
  const record = loadDeviceChannel();
  if (record === null) return { ok: true };
  const deleted = await deleteChannel(api, record.channelId);
  if (!deleted.ok) return { ok: false, error: deleted };
  try {
    clearDeviceChannel();
  } catch (error) {
    return { ok: false, error: browserPushFaultOf(error) };
  }
  await shareWithWorker(null);
  return { ok: true };
}

/** A channel already gone (deleted in Settings, on another tab) counts as deleted. */
async function deleteChannel(api: DeviceApi, id: string): Promise<ApiResult<unknown>> {
  const deleted = await api.deleteChannel(id);
  return !deleted.ok && deleted.kind === 'http' && deleted.status === 404
    ? { ok: true, status: 404, value: null }
    : deleted;
}

/** Best effort after a failure that is already reported: a stray subscription reads as off. */
async function dropSubscription(subscription: PushSubscription): Promise<void> {
  await within(subscription.unsubscribe(), 'push_service').catch(() => false);
}

/** Storage that cannot be read (disabled, private mode) holds no record. */
function loadDeviceChannel(): DeviceChannel | null {
  try {
    return parseDeviceChannel(localStorage.getItem(DEVICE_CHANNEL_KEY));
  } catch {
    return null;
  }
}

function saveDeviceChannel(record: DeviceChannel): void {
  localStorage.setItem(DEVICE_CHANNEL_KEY, serializeDeviceChannel(record));
}

function clearDeviceChannel(): void {
  localStorage.removeItem(DEVICE_CHANNEL_KEY);
}

/**
 * Gives the service worker this device's record, or takes it back. Best
 * effort: without it the worker cannot renew a replacement that names no
 * old subscription, and the page still renews the next time it reads the
 * device; a stale copy names a channel the server no longer moves (404).
 */
async function shareWithWorker(record: DeviceChannel | null): Promise<void> {
  const shared = async () => {
    const cache = await caches.open(WORKER_RECORD_CACHE);
    if (record === null) {
      await cache.delete(WORKER_RECORD_PATH);
      return;
    }
    const body = serializeDeviceChannel(record);
    const headers = { 'content-type': 'application/json' };
    await cache.put(WORKER_RECORD_PATH, new Response(body, { headers }));
  };
  await within(shared(), 'service_worker').catch(() => undefined);
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function within<T>(step: Promise<T>, what: PushStep): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new PushStepTimeout(what));
    }, PUSH_STEP_TIMEOUT_MS);
    step.then(resolve, reject).finally(() => {
      clearTimeout(timer);
    });
  });
}
