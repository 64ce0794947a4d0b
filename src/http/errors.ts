/**
 * Where REST meets the outcome catalogue (`wire/outcomes.ts`): a service's
 * failure becomes the catalogue's status and body, and nothing else decides
 * either. Anything without a known code is a 500 `internal`, never a client
 * fault.
 */
import type { Context, Env, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../observability/index.js';
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
  const headers =
    entry.retryAfterS === undefined ? undefined : { 'Retry-After': String(entry.retryAfterS) };
  return c.json(errorBodyOf(failed), status as ContentfulStatusCode, headers);
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

/** Anything a route did not map is a 500 `internal`, in the same JSON shape, and logged. */
export function handleUnexpectedErrors<E extends Env>(app: Hono<E>, logger: Logger): void {
  app.onError((error, c) => {
    logger.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(errorBodyOf({ code: 'internal' }), 500);
  });
}
