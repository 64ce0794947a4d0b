/**
 * One bounded HTTP POST for a sender, and how its outcome reads as a
 * `SendResult`: a 2xx delivered; 408, 425, 429 and 5xx (and a network fault
 * or a timeout) may pass on a later try; any other answer will not. Redirects
 * are not followed: a channel's target is the URL its owner gave, and an
 * admin's allowed hosts would mean nothing if a receiver could send Clarion
 * elsewhere.
 *
 * What a failure says is the status and Clarion's own words, never the
 * receiver's body or the socket's error: the test reply and `last_error`
 * reach the channel's owner, who may not be the one who runs the receiver,
 * and a body or an `ECONNREFUSED` would let them read or map services behind
 * the server. Every network fault reads "could not reach the target"; a
 * timeout stays apart ("timed out") because the owner sees how long the test
 * took anyway, and it is the one fault they can act on (a slow receiver).
 */
import { urlHasCredentials } from '../wire/index.js';
import type { SendResult } from './channel.js';
import {
  guardedPost,
  INTERNAL_TARGET_REFUSED,
  InternalTargetError,
  type PostReply,
} from './guarded-post.js';
import type { Reach } from './targets.js';

const RETRYABLE_STATUSES = new Set([408, 425, 429]);

/** Whether a receiver's HTTP status may pass on a later try: 408, 425, 429 and every 5xx. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || RETRYABLE_STATUSES.has(status);
}

/** Every network fault, in Clarion's words: refused, reset, unknown name or a bad certificate alike. */
export const UNREACHABLE = 'could not reach the target';

export interface PostRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The channel's `ChannelTarget.reach`. */
  readonly reach: Reach;
}

/** `Retry-After` as milliseconds from `nowMs`: seconds or an HTTP date. */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export async function postOnce(request: PostRequest, signal: AbortSignal): Promise<SendResult> {
  const unsendable = unsendableUrl(request.url);
  if (unsendable !== undefined) return { ok: false, status: null, ...unsendable, retryable: false };
  let response: PostReply;
  try {
    response = await guardedPost(request.url, request.headers, request.body, signal, request.reach);
  } catch (error) {
    if (error instanceof InternalTargetError) {
      return {
        ok: false,
        status: null,
        error: INTERNAL_TARGET_REFUSED,
        code: 'internal_target',
        retryable: false,
      };
    }
    return signal.aborted
      ? { ok: false, status: null, error: 'timed out', code: 'timed_out', retryable: true }
      : { ok: false, status: null, error: UNREACHABLE, code: 'unreachable', retryable: true };
  }
  const status = response.status;
  if (status >= 200 && status < 300) return { ok: true, status };
  const error = `HTTP ${status}`;
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      status,
      error: `${error} (redirects are not followed)`,
      code: 'redirect',
      retryable: false,
    };
  }
  const retryable = retryableStatus(status);
  const after = retryAfterMs(response.retryAfter, Date.now());
  return {
    ok: false,
    status,
    error,
    code: 'http_status',
    retryable,
    ...(after === undefined ? {} : { retryAfterMs: after }),
  };
}

/**
 * Why `fetch` would refuse `url` before sending, or undefined. Its error
 * would quote the whole URL, password included, into `last_error`, the logs
 * and the channel's view; and no retry mends it. `newChannelBody` refuses
 * both, so only a channel stored before it did can reach here.
 */
function unsendableUrl(
  url: string,
): { error: string; code: 'url_unparsable' | 'url_has_credentials' } | undefined {
  if (!URL.canParse(url)) {
    return { error: 'the channel URL cannot be parsed', code: 'url_unparsable' };
  }
  if (urlHasCredentials(url)) {
    return {
      error:
        'the channel URL includes a username or password, which cannot be sent; add the channel again without them',
      code: 'url_has_credentials',
    };
  }
  return undefined;
}

/** A string field of a channel's config; a stored channel always has its own fields. */
export function configString(config: Readonly<Record<string, unknown>>, field: string): string {
  const value = config[field];
  return typeof value === 'string' ? value : '';
}
