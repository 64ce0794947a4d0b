/**
 * Where REST meets the outcome catalogue (`wire/outcomes.ts`): a service's
 * failure becomes the catalogue's status and body, and nothing else decides
 * either. Anything without a known code is a 500 `internal`, never a client
 * fault.
 */
import type { Context, Env, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../observability/index.js';
import type { StorageUnavailableError } from '../store/index.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '../tunables.js';
import {
  errorBodyOf,
  OUTCOMES,
  type Failure,
  type OutcomeCode,
  type OutcomeEntry,
} from '../wire/index.js';

export type { ErrorBody } from '../wire/index.js';

/** The catalogue's status and body for a failure; a gone caller gets an empty 499. */
export function failureResponse(
  c: Context,
  failed: Pick<Failure, 'code' | 'message' | 'details'>,
): Response {
  const entry: OutcomeEntry = OUTCOMES[failed.code];
  const status = entry.status;
  // Nobody is listening; the status only shows in access logs.
  if (status === 499) return new Response(null, { status });
  return c.json(
    errorBodyOf(failed),
    status as ContentfulStatusCode,
    retryAfterHeaders(failed.code),
  );
}

/**
 * The `Retry-After` header of `code`'s reply, for every reply with its status
 * (`/healthz` answers its 503s in a body of its own): a quota says when to come
 * back; any other 503 is worth retrying soon (a budget ran out, the disk filled).
 */
export function retryAfterHeaders(code: OutcomeCode): Record<string, string> | undefined {
  const entry: OutcomeEntry = OUTCOMES[code];
  const retryAfterS =
    entry.retryAfterS ?? (entry.status === 503 ? SERVICE_UNAVAILABLE_RETRY_AFTER_S : undefined);
  return retryAfterS === undefined ? undefined : { 'Retry-After': String(retryAfterS) };
}

/** `failureResponse` for a code, an optional message naming the subject, and details. */
export function errorResponse(
  c: Context,
  code: OutcomeCode,
  message?: string,
  details?: Failure['details'],
): Response {
  return failureResponse(c, {
    code,
    ...(message === undefined ? {} : { message }),
    ...(details === undefined ? {} : { details }),
  });
}

/** The store's fault for a full disk, an I/O error or a lock held too long, told by its code. */
function isStorageUnavailable(error: unknown): error is StorageUnavailableError {
  return (error as { code?: unknown } | null)?.code === 'storage_unavailable';
}

/**
 * The request's own connection failed under it: its caller went away (closed
 * the connection while still sending, or a stop's drain cut it once its bound
 * passed). Nobody is left to answer, and nothing is wrong with the server.
 */
function callerWentAway(error: unknown, c: Context): boolean {
  return c.req.raw.signal.aborted && (error as { code?: unknown } | null)?.code === 'ECONNRESET';
}

/**
 * Anything a route did not map is a 500 `internal`, in the same JSON shape,
 * and logged; except a storage fault, which is a 503 with its cause logged,
 * and a caller gone while its request was read, an empty 499 logged as such.
 */
export function handleUnexpectedErrors<E extends Env>(app: Hono<E>, logger: Logger): void {
  app.onError((error, c) => {
    if (callerWentAway(error, c)) {
      logger.info(
        { path: c.req.path, method: c.req.method },
        'the caller went away before its request was answered',
      );
      return failureResponse(c, { code: 'caller_gone' });
    }
    if (isStorageUnavailable(error)) {
      logger.error({ err: error, reason: error.reason, path: c.req.path }, 'storage unavailable');
      return failureResponse(c, { code: 'storage_unavailable' });
    }
    logger.error({ err: error, path: c.req.path }, 'unhandled error');
    return failureResponse(c, { code: 'internal' });
  });
}
