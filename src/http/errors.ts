/**
 * The one catalogue from error codes to HTTP status and wire body. Services
 * return or throw codes; only this file knows what they look like on the
 * wire. Anything without a known code is a 500 `internal`, never a client fault.
 */
import type { Context, Env, Hono } from 'hono';
import type { Logger } from '../observability/logger.js';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, message: 'invalid request' },
  unauthorized: { status: 401, message: 'authentication required' },
  forbidden: { status: 403, message: 'not allowed' },
  not_found: { status: 404, message: 'not found' },
  not_active: { status: 409, message: 'clarification request is no longer active' },
  conflict: { status: 409, message: 'conflict' },
  payload_too_large: { status: 413, message: 'request body is too large' },
  unsupported_media_type: { status: 415, message: 'request body must be JSON' },
  temporarily_unavailable: {
    status: 503,
    message: 'clarification response is temporarily unavailable',
  },
  internal: { status: 500, message: 'internal error' },
} as const satisfies Record<string, { status: ContentfulStatusCode; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: unknown;
}

export function errorBody(code: ErrorCode, message?: string, details?: unknown): ErrorBody {
  const body: ErrorBody = { error: message ?? ERROR_CATALOGUE[code].message, code };
  if (details !== undefined) body.details = details;
  return body;
}

/** Writes the catalogue's status and body for `code`. */
export function errorResponse(c: Context, code: ErrorCode, message?: string, details?: unknown) {
  return c.json(errorBody(code, message, details), ERROR_CATALOGUE[code].status);
}

/** Anything a route did not map is a 500 `internal`, in the same JSON shape, and logged. */
export function handleUnexpectedErrors<E extends Env>(app: Hono<E>, logger: Logger): void {
  app.onError((error, c) => {
    logger.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(errorBody('internal'), 500);
  });
}
