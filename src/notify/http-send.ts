/**
 * One bounded HTTP POST for a sender, and how its outcome reads as a
 * `SendResult`: a 2xx delivered; 408, 425, 429 and 5xx (and a network fault
 * or a timeout) may pass on a later try; any other answer will not. Redirects
 * are not followed: a channel's target is the URL its owner gave, and an
 * admin's allowed hosts would mean nothing if a receiver could send Clarion
 * elsewhere.
 */
import { urlHasCredentials } from '../wire/index.js';
import type { SendResult } from './channel.js';

const RETRYABLE_STATUSES = new Set([408, 425, 429]);

/** What is kept of a receiver's error body in `last_error`. */
const MAX_ERROR_BODY_CHARS = 200;

export interface PostRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
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
  if (unsendable !== undefined)
    return { ok: false, status: null, error: unsendable, retryable: false };
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    const reason = signal.aborted
      ? 'timed out'
      : error instanceof Error
        ? (causeMessage(error) ?? error.message)
        : String(error);
    return { ok: false, status: null, error: reason, retryable: true };
  }
  const status = response.status;
  if (status >= 200 && status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: true, status };
  }
  const text = await response.text().catch(() => '');
  const detail = text.trim().slice(0, MAX_ERROR_BODY_CHARS);
  const error = `HTTP ${status}${detail ? `: ${detail}` : ''}`;
  if (status >= 300 && status < 400) {
    return { ok: false, status, error: `${error} (redirects are not followed)`, retryable: false };
  }
  const retryable = status >= 500 || RETRYABLE_STATUSES.has(status);
  const after = retryAfterMs(response.headers.get('retry-after'), Date.now());
  return {
    ok: false,
    status,
    error,
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
function unsendableUrl(url: string): string | undefined {
  if (!URL.canParse(url)) return 'the channel URL cannot be parsed';
  if (urlHasCredentials(url)) {
    return 'the channel URL includes a username or password, which cannot be sent; add the channel again without them';
  }
  return undefined;
}

/** undici hides the socket's reason (ECONNREFUSED) in `cause`. */
function causeMessage(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return undefined;
}

/** A string field of a channel's config; a stored channel always has its own fields. */
export function configString(config: Readonly<Record<string, unknown>>, field: string): string {
  const value = config[field];
  return typeof value === 'string' ? value : '';
}
