/**
 * What "Notifications on this device" tells the person, from what the
 * browser exposes (in Node: the decision, not the DOM). An http:// page on a
 * LAN address hides the push APIs altogether, so "needs HTTPS" must win
 * over "not supported", or the person would be told the wrong remedy.
 */
import { describe, expect, it } from 'vitest';
import { deviceName, pushSupport, type PushEnvironment } from '../../web/src/model/push-support.js';

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
