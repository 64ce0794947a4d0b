/**
 * Why a notice or a channel's test was not delivered, as a stable code: the
 * web app words each in the page's language, while the reply's `error`
 * keeps Clarion's English for logs and API users. The one parameter a
 * wording may use is the receiver's HTTP status, carried beside the code
 * (`status`). Zod-free, for the browser: it tells a code it knows from one a
 * newer server sent, and falls back to the English text for that one and
 * for a last delivery stored before codes were kept.
 */
export const DELIVERY_ERROR_CODES = [
  /** Refused, reset, an unknown name or a bad certificate alike: never the socket's own words. */
  'unreachable',
  'timed_out',
  /** The server stopped mid-send; the notice is sent again at its next start. */
  'shutting_down',
  /** The receiver answered a status that is not 2xx or 3xx (`status`). */
  'http_status',
  /** The receiver answered a redirect (`status`), which is never followed. */
  'redirect',
  /** A loopback, link-local or private address a channel of someone not an admin may not reach. */
  'internal_target',
  /** `CLARION_NOTIFY_ALLOWED_HOSTS` does not name the channel's host. */
  'host_not_allowed',
  /** A channel stored before its URL was checked as it is now. */
  'url_unparsable',
  'url_has_credentials',
  'no_subscription',
  /** The push service says the subscription is gone (404, 410): turn it on again on that device. */
  'subscription_gone',
  'push_too_large',
  'push_unprepared',
  /** This server has no sender for the channel's kind. */
  'kind_unsupported',
  /** Whether the notice may still be sent could not be checked; it is tried again. */
  'recheck_failed',
  /** The item stopped waiting before its notice went out. */
  'no_longer_waiting',
  /** The person may no longer see the item. */
  'not_visible',
  /** A reminder whose person turned reminders off ("Never") before it went out. */
  'reminders_off',
  /** A reminder whose person set a longer delay before it went out; it is sent after that. */
  'reminder_later',
  /** The sender failed in a way Clarion did not foresee; the log has its error. */
  'send_failed',
] as const;
export type DeliveryErrorCode = (typeof DELIVERY_ERROR_CODES)[number];

export function isDeliveryErrorCode(value: unknown): value is DeliveryErrorCode {
  return (DELIVERY_ERROR_CODES as readonly unknown[]).includes(value);
}
