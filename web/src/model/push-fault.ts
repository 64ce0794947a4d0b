/**
 * Why a browser step of turning push on or off failed, as a reason the page
 * can say in its own language. The Push API, the service worker and storage
 * reject with a `DOMException` whose message is the browser's English
 * ("Registration failed - permission denied"); only its `name` is a stable
 * code, so that is all this keeps. A step that did not answer in time is
 * `timeout`, with the part that kept it waiting.
 */

/**
 * The longest one step (the service worker's registration and activation,
 * the push service's subscription, one call to the server) may take: a
 * browser that cannot reach its push service may otherwise leave the button
 * spinning for minutes.
 */
export const PUSH_STEP_TIMEOUT_MS = 30_000;

/**
 * How long signing out waits for this device's notifications to turn off.
 * A step may take `PUSH_STEP_TIMEOUT_MS`, and a person who asked to sign out
 * is not kept waiting on a push service for that: past this, they are
 * signed out all the same, and the device may hear of them until the push
 * service drops its subscription.
 */
export const SIGN_OUT_PUSH_WAIT_MS = 5_000;

/** The part of the browser a step waits on; only a timeout names it. */
export type PushStep = 'service_worker' | 'push_service';

export type BrowserPushFault =
  | { kind: 'browser'; reason: BrowserPushReason }
  | { kind: 'browser'; reason: 'timeout'; step: PushStep }
  /** A name this list does not know: said as it is, the browser's code for the case. */
  | { kind: 'browser'; reason: 'other'; name: string };

export const BROWSER_PUSH_REASONS = [
  'not_allowed',
  'aborted',
  'invalid_state',
  'not_supported',
  'security',
  'storage_full',
] as const;
export type BrowserPushReason = (typeof BROWSER_PUSH_REASONS)[number];

const BY_NAME: Readonly<Record<string, BrowserPushReason>> = {
  NotAllowedError: 'not_allowed',
  AbortError: 'aborted',
  InvalidStateError: 'invalid_state',
  NotSupportedError: 'not_supported',
  SecurityError: 'security',
  QuotaExceededError: 'storage_full',
};

/** The error a bounded step rejects with when its part did not answer in time. */
export class PushStepTimeout extends Error {
  constructor(readonly step: PushStep) {
    super(`${step} did not answer in time`);
    this.name = 'PushStepTimeout';
  }
}

export function browserPushFaultOf(error: unknown): BrowserPushFault {
  if (error instanceof PushStepTimeout) {
    return { kind: 'browser', reason: 'timeout', step: error.step };
  }
  const name =
    typeof error === 'object' && error !== null && typeof (error as Error).name === 'string'
      ? (error as Error).name
      : '';
  const reason = Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
  if (reason !== undefined) return { kind: 'browser', reason };
  return { kind: 'browser', reason: 'other', name: name === '' ? 'Error' : name };
}
