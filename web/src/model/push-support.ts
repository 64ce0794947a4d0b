/**
 * What Web Push on this device can do, decided from what the browser
 * exposes. Free of the DOM, so Node tests run it; `push-device.ts` reads the
 * browser and acts.
 */

/** What this browser can do, before anything is asked. */
export type PushSupport = 'insecure' | 'unsupported' | 'blocked' | 'ready';

export interface PushEnvironment {
  readonly isSecureContext: boolean;
  readonly hasServiceWorker: boolean;
  readonly hasPushManager: boolean;
  readonly permission: 'default' | 'denied' | 'granted' | undefined;
}

/** Insecure comes first: an http:// page hides the push APIs, so it would look "unsupported". */
export function pushSupport(env: PushEnvironment): PushSupport {
  if (!env.isSecureContext) return 'insecure';
  if (!env.hasServiceWorker || !env.hasPushManager || env.permission === undefined) {
    return 'unsupported';
  }
  return env.permission === 'denied' ? 'blocked' : 'ready';
}

/** "Chrome on Android": enough to tell one's devices apart in the channel list. */
export function deviceName(userAgent: string): string {
  const os =
    [
      ['iPhone', 'iPhone'],
      ['iPad', 'iPad'],
      ['Android', 'Android'],
      ['Mac OS X', 'macOS'],
      ['Windows', 'Windows'],
      ['Linux', 'Linux'],
    ].find(([token]) => userAgent.includes(token ?? ''))?.[1] ?? 'this device';
  const browser =
    [
      ['Firefox/', 'Firefox'],
      ['Edg/', 'Edge'],
      ['Chrome/', 'Chrome'],
      ['Safari/', 'Safari'],
    ].find(([token]) => userAgent.includes(token ?? ''))?.[1] ?? 'Browser';
  return `${browser} on ${os}`;
}
