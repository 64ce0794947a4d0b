/** A stand-in for the browser's `PushManager`, for suites that turn a device's notifications on. */
import { createECDH, randomBytes } from 'node:crypto';

/** Set in `sessionStorage` once a hanging `unsubscribe` was called: the page now waits on it. */
export const UNSUBSCRIBE_HANGING_KEY = 'test.push-unsubscribe-hanging';

/**
 * A page script that stands in for the push service: `subscribe` hands out a
 * new loopback endpoint each time (with real keys, as the server checks
 * them), `getSubscription` returns the current one, and `unsubscribe` drops
 * it. Kept in `sessionStorage`, so it outlives a reload as a real one does.
 * `unsubscribeHangs`: `unsubscribe` never answers, as a push service out of
 * reach, and says it was called (`UNSUBSCRIBE_HANGING_KEY`).
 */
export function fakePushManager(options: { unsubscribeHangs?: boolean } = {}): string {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const keys = {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
  return `(() => {
    const KEY = 'test.push-endpoint';
    const keys = ${JSON.stringify(keys)};
    const subscription = (endpoint) => ({
      endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true },
      getKey: () => null,
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      unsubscribe: async () => {
        if (${options.unsubscribeHangs === true}) {
          sessionStorage.setItem(${JSON.stringify(UNSUBSCRIBE_HANGING_KEY)}, endpoint);
          await new Promise(() => {});
        }
        if (sessionStorage.getItem(KEY) === endpoint) sessionStorage.removeItem(KEY);
        return true;
      },
    });
    PushManager.prototype.getSubscription = async function () {
      const endpoint = sessionStorage.getItem(KEY);
      return endpoint === null ? null : subscription(endpoint);
    };
    PushManager.prototype.subscribe = async function () {
      const endpoint = 'http://127.0.0.1:9/push/' + crypto.randomUUID();
      sessionStorage.setItem(KEY, endpoint);
      return subscription(endpoint);
    };
  })()`;
}
