/**
 * The Web Push channel: one notice as one encrypted message (RFC 8291,
 * aes128gcm) with VAPID authentication (RFC 8292) to the push service that
 * issued the browser's subscription. The `web-push` library signs the JWT
 * and encrypts the payload; the request itself goes through `guardedPost`
 * (which keeps a `public` channel off internal addresses), whose signal
 * bounds the whole exchange (the library's own `timeout` is only a
 * socket idle timeout and it cannot be aborted).
 *
 * One attempt, never a retry: the answer says whether another could help.
 * 404/410 mean the subscription is gone for good; 429 and 5xx are worth
 * retrying, after the service's `Retry-After` when it gives one; a refused
 * JWT or a malformed request (other 4xx) will be refused again.
 *
 * A failure says the status in Clarion's words, never the service's body
 * nor the socket's error: the subscription is whatever its owner sent, so
 * its "push service" may be any host, and its reply is not the owner's to
 * read (`http-send.ts` says the same of the other kinds).
 */
import webPush from 'web-push';
import type { Clock } from '../support/index.js';
import { WEB_PUSH_SEND_TIMEOUT_MS } from '../tunables.js';
import {
  MAX_WEB_PUSH_PLAINTEXT_BYTES,
  pushSubscription,
  type DeliveryErrorCode,
  type PushSubscriptionJson,
} from '../wire/index.js';
import type { ChannelSender, ChannelTarget, Notice, SendResult } from './channel.js';
import { guardedPost, INTERNAL_TARGET_REFUSED, InternalTargetError } from './guarded-post.js';
import { retryableStatus } from './http-send.js';
import type { VapidKeys } from './vapid.js';
import { DEFAULT_TTL_BOUNDS, type TtlBounds, webPushEnvelope } from './web-push-message.js';

export interface WebPushSenderOptions {
  readonly keys: VapidKeys;
  /** `vapidSubject(…).subject`: a `mailto:` or `https:` contact. */
  readonly subject: string;
  readonly clock: Clock;
  /** Bounds one request even when the caller's signal is looser. */
  readonly sendTimeoutMs?: number;
  readonly ttl?: TtlBounds;
}

export function createWebPushSender(options: WebPushSenderOptions): ChannelSender {
  return {
    kind: 'web_push',
    send: (target, notice, signal) => sendOnce(options, target, notice, signal),
  };
}

/** A channel's config is `{ subscription }`, as `newChannelBody` carries it. */
export function subscriptionOf(config: ChannelTarget['config']): PushSubscriptionJson | undefined {
  const parsed = pushSubscription.safeParse(config.subscription);
  return parsed.success ? parsed.data : undefined;
}

function refused(error: string, code: DeliveryErrorCode, status: number | null = null): SendResult {
  return { ok: false, status, error, code, retryable: false };
}

async function sendOnce(
  options: WebPushSenderOptions,
  target: ChannelTarget,
  notice: Notice,
  signal: AbortSignal,
): Promise<SendResult> {
  const subscription = subscriptionOf(target.config);
  if (subscription === undefined)
    return refused('the channel holds no valid push subscription', 'no_subscription');
  const envelope = webPushEnvelope(
    notice,
    options.clock.nowMs(),
    options.ttl ?? DEFAULT_TTL_BOUNDS,
  );
  const plaintext = JSON.stringify(envelope.message);
  if (Buffer.byteLength(plaintext) > MAX_WEB_PUSH_PLAINTEXT_BYTES) {
    return refused(
      `the push message is larger than ${String(MAX_WEB_PUSH_PLAINTEXT_BYTES)} bytes`,
      'push_too_large',
    );
  }
  let details: ReturnType<typeof webPush.generateRequestDetails>;
  try {
    details = webPush.generateRequestDetails(subscription, plaintext, {
      vapidDetails: { subject: options.subject, ...options.keys },
      contentEncoding: 'aes128gcm',
      TTL: envelope.ttlS,
      urgency: envelope.urgency,
      topic: envelope.topic,
    });
  } catch (error) {
    // A subscription key that is not a P-256 point, or a bad VAPID subject: no retry mends it.
    return refused(
      `the push message could not be prepared: ${messageOf(error)}`,
      'push_unprepared',
    );
  }

  const timeoutMs = options.sendTimeoutMs ?? WEB_PUSH_SEND_TIMEOUT_MS;
  const bound = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const response = await guardedPost(
      details.endpoint,
      requestHeaders(details.headers),
      details.body === null ? null : new Uint8Array(details.body),
      bound,
      target.reach,
    );
    return resultOf(response.status, response.retryAfter, options.clock);
  } catch (error) {
    if (error instanceof InternalTargetError) {
      return refused(INTERNAL_TARGET_REFUSED, 'internal_target');
    }
    const why = signal.aborted
      ? 'the send was aborted'
      : bound.aborted
        ? `the push service did not answer within ${String(timeoutMs)} ms`
        : 'the push service could not be reached';
    // An abort is the outbox's bound or its stop; its own verdict wins that race anyway.
    const code = signal.aborted || bound.aborted ? 'timed_out' : 'unreachable';
    return { ok: false, status: null, error: why, code, retryable: true };
  }
}

/** `guardedPost` sets Content-Length from the body itself; every other header goes as text. */
function requestHeaders(headers: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'content-length') result[name] = String(value);
  }
  return result;
}

export function resultOf(status: number, retryAfter: string | null, clock: Clock): SendResult {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status === 404 || status === 410) {
    return refused(
      `the push subscription is gone (${String(status)}); turn notifications on again on that device`,
      'subscription_gone',
      status,
    );
  }
  if (retryableStatus(status)) {
    const delayMs = retryAfterMs(retryAfter, clock.nowMs());
    return {
      ok: false,
      status,
      error: `the push service is unavailable (${String(status)})`,
      code: 'http_status',
      retryable: true,
      ...(delayMs === undefined ? {} : { retryAfterMs: delayMs }),
    };
  }
  return refused(`the push service refused the message (${String(status)})`, 'http_status', status);
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
