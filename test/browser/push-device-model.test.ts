/**
 * What "Notifications on this device" tells the person, from what the
 * browser exposes (in Node: the decision, not the DOM). An http:// page on a
 * LAN address hides the push APIs altogether, so "needs HTTPS" must win
 * over "not supported", or the person would be told the wrong remedy.
 * Whether the device is on takes the server's channel list too: a
 * subscription whose channel is gone, or that replaced the one the channel
 * was made from, reads as off.
 */
import { describe, expect, it } from 'vitest';
import {
  channelOfSubscription,
  parseDeviceChannel,
  pushDeviceOn,
  serializeDeviceChannel,
  type DeviceFacts,
} from '../../web/src/model/push-channel.js';
import { deviceName, pushSupport, type PushEnvironment } from '../../web/src/model/push-support.js';
import {
  BROWSER_PUSH_REASONS,
  browserPushFaultOf,
  PushStepTimeout,
} from '../../web/src/model/push-fault.js';
import { CATALOGS, LANGUAGES } from '../../web/src/i18n/catalogs.js';

const READY: PushEnvironment = {
  isSecureContext: true,
  hasServiceWorker: true,
  hasPushManager: true,
  permission: 'default',
};

describe('pushSupport', () => {
  it.each<[string, Partial<PushEnvironment>, ReturnType<typeof pushSupport>]>([
    ['a secure page with the APIs', {}, 'ready'],
    ['permission already granted', { permission: 'granted' }, 'ready'],
    ['permission denied', { permission: 'denied' }, 'blocked'],
    [
      'http:// on a LAN address',
      { isSecureContext: false, hasServiceWorker: false, hasPushManager: false },
      'insecure',
    ],
    ['Safari on iOS outside the Home Screen', { hasPushManager: false }, 'unsupported'],
    ['no Notification API', { permission: undefined }, 'unsupported'],
    ['no service workers', { hasServiceWorker: false }, 'unsupported'],
  ])('%s', (_name, overrides, expected) => {
    expect(pushSupport({ ...READY, ...overrides })).toBe(expected);
  });
});

describe('deviceName', () => {
  it.each([
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
      'Safari on iPhone',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
    ['curl/8', 'Browser on this device'],
  ])('%s', (userAgent, name) => {
    expect(deviceName(userAgent)).toBe(name);
  });
});

describe('the device channel record', () => {
  const record = { endpoint: 'https://push.example/sub/1', channelId: 'ch-1' };

  it('reads back what it wrote', () => {
    expect(parseDeviceChannel(serializeDeviceChannel(record))).toEqual(record);
  });

  it.each([
    ['nothing stored', null],
    ['not JSON', '{endpoint'],
    ['JSON null', 'null'],
    ['a string', '"ch-1"'],
    ['no channel', '{"endpoint":"https://push.example/sub/1"}'],
    ['an empty endpoint', '{"endpoint":"","channelId":"ch-1"}'],
    ['a number for a channel', '{"endpoint":"https://push.example/sub/1","channelId":7}'],
  ])('holds no record for %s', (_name, text) => {
    expect(parseDeviceChannel(text)).toBeNull();
  });

  it('names the channel only for the subscription it was made from', () => {
    expect(channelOfSubscription(record, 'https://push.example/sub/1')).toBe('ch-1');
    expect(channelOfSubscription(record, 'https://push.example/sub/2')).toBeNull();
    expect(channelOfSubscription(record, null)).toBeNull();
    expect(channelOfSubscription(null, 'https://push.example/sub/1')).toBeNull();
  });
});

describe('pushDeviceOn', () => {
  const ON: DeviceFacts = {
    permission: 'granted',
    endpoint: 'https://push.example/sub/1',
    record: { endpoint: 'https://push.example/sub/1', channelId: 'ch-1' },
    channels: [
      { id: 'ch-0', kind: 'ntfy' },
      { id: 'ch-1', kind: 'web_push' },
    ],
  };

  it.each<[string, Partial<DeviceFacts>, boolean]>([
    ['subscribed, allowed, its channel listed', {}, true],
    ['no subscription', { endpoint: null }, false],
    ['permission reset', { permission: 'default' }, false],
    ['permission denied', { permission: 'denied' }, false],
    ['its channel deleted in Settings', { channels: [{ id: 'ch-0', kind: 'ntfy' }] }, false],
    ['no channel at all', { channels: [] }, false],
    ['nothing recorded (subscribed before channels were recorded)', { record: null }, false],
    [
      'the browser replaced the subscription the channel was made from',
      { endpoint: 'https://push.example/sub/2' },
      false,
    ],
    [
      'a channel of another kind with that ID',
      { channels: [{ id: 'ch-1', kind: 'webhook' }] },
      false,
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(pushDeviceOn({ ...ON, ...overrides })).toBe(expected);
  });
});

describe('a browser’s refusal of a push step', () => {
  it.each([
    ['NotAllowedError', 'not_allowed'],
    ['AbortError', 'aborted'],
    ['InvalidStateError', 'invalid_state'],
    ['NotSupportedError', 'not_supported'],
    ['SecurityError', 'security'],
    ['QuotaExceededError', 'storage_full'],
  ])('keeps a %s by its name alone, never its English message', (name, reason) => {
    const error = new DOMException('Registration failed - push service error', name);
    expect(browserPushFaultOf(error)).toEqual({ kind: 'browser', reason });
  });

  it('names the part that did not answer in time, and an unknown error by its name', () => {
    expect(browserPushFaultOf(new PushStepTimeout('push_service'))).toEqual({
      kind: 'browser',
      reason: 'timeout',
      step: 'push_service',
    });
    expect(browserPushFaultOf(new TypeError('Failed to execute'))).toEqual({
      kind: 'browser',
      reason: 'other',
      name: 'TypeError',
    });
    expect(browserPushFaultOf('nope')).toEqual({ kind: 'browser', reason: 'other', name: 'Error' });
  });

  it.each(LANGUAGES)('has a text for every reason in %s', (language) => {
    const { fault } = CATALOGS[language].devicePush;
    for (const reason of BROWSER_PUSH_REASONS) expect(fault[reason].trim(), reason).not.toBe('');
    expect(fault.timeout.service_worker.trim()).not.toBe('');
    expect(fault.timeout.push_service.trim()).not.toBe('');
    expect(fault.other).toContain('{{name}}');
  });
});
