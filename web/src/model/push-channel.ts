/**
 * Which server channel is this device's Web Push subscription. The server
 * lists a `web_push` channel with only its push service's host, so the
 * browser remembers, when the server takes a subscription, which channel it
 * became: `{ endpoint, channelId }`, one record per browser profile and
 * origin (as there is one subscription). Pure: reading and writing the
 * browser's storage belongs to `push-device.ts`.
 *
 * The device is on only when the browser holds a subscription, may show
 * notifications, and the channel recorded for that very endpoint is still
 * on the server's list: a channel deleted in Settings reads as off. A
 * subscription the browser replaced reads as off too, unless its channel
 * was moved to it first and the record with it (`push-device.ts`).
 */
import type { ChannelView } from '../../../src/wire/index.js';
import type { PushEnvironment } from './push-support.js';

export interface DeviceChannel {
  /** The push service endpoint of the subscription the channel was made from. */
  readonly endpoint: string;
  readonly channelId: string;
}

/** The storage key of this device's record (`localStorage`, per origin like the subscription). */
export const DEVICE_CHANNEL_KEY = 'clarion.push-device-channel';

/**
 * Where the service worker finds a copy of the record (Cache storage, which
 * it can read and `localStorage` is not): a browser may replace the
 * subscription without saying which one it replaced, and the worker then
 * renews the channel from the endpoint recorded here (`web/public/sw.js`
 * spells both names out again, as it imports nothing).
 */
export const WORKER_RECORD_CACHE = 'clarion-push-device';
export const WORKER_RECORD_PATH = '/push-device-channel';

export function parseDeviceChannel(text: string | null): DeviceChannel | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not ours or torn: the same as no record; the next "turn on" writes a fresh one.
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { endpoint, channelId } = value as Record<string, unknown>;
  return typeof endpoint === 'string' &&
    endpoint !== '' &&
    typeof channelId === 'string' &&
    channelId !== ''
    ? { endpoint, channelId }
    : null;
}

export function serializeDeviceChannel(record: DeviceChannel): string {
  return JSON.stringify({ endpoint: record.endpoint, channelId: record.channelId });
}

/** The channel made from the subscription at `endpoint`, if this device recorded one. */
export function channelOfSubscription(
  record: DeviceChannel | null,
  endpoint: string | null,
): string | null {
  return record !== null && endpoint !== null && record.endpoint === endpoint
    ? record.channelId
    : null;
}

export interface DeviceFacts {
  /** `Notification.permission`. */
  readonly permission: PushEnvironment['permission'];
  /** The endpoint of the subscription the browser holds, or null for none. */
  readonly endpoint: string | null;
  readonly record: DeviceChannel | null;
  /** The server's list of this person's channels. */
  readonly channels: readonly Pick<ChannelView, 'id' | 'kind'>[];
}

export function pushDeviceOn(facts: DeviceFacts): boolean {
  if (facts.permission !== 'granted') return false;
  const id = channelOfSubscription(facts.record, facts.endpoint);
  return id !== null && facts.channels.some((c) => c.id === id && c.kind === 'web_push');
}
