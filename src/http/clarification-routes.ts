/**
 * `/api/v1/clarification/:pendingId` routes: parse, call the service, map
 * the typed result to the wire (DESIGN §5.1). Nothing else is decided here.
 */
import type { Context, Hono } from 'hono';
import {
  listPendingBundles,
  respondInput,
  type ClarificationService,
  type RespondResult,
} from '../clarification/index.js';
import type { RepoContext } from '../store/index.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';
import { parseJsonBody } from './request-guards.js';

/** Pending IDs are UUIDs Clarion mints; anything else is unknown without asking the database. */
const PENDING_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface ClarificationRouteDeps {
  clarification: ClarificationService;
  store: RepoContext;
}

/** Answers a raw response body as the catalogue says; only codes from the table of DESIGN §5.1. */
function respondResponse(c: Context<AppEnv>, result: RespondResult): Response {
  if (result.ok) {
    return c.json({ claimed: result.claimed, status: result.status, response: result.response });
  }
  switch (result.code) {
    case 'invalid_request':
      return errorResponse(c, 'invalid_request', 'invalid clarification response', result.issues);
    case 'not_found':
      return errorResponse(c, 'not_found', 'clarification request not found');
    case 'not_active':
      return errorResponse(c, 'not_active');
    case 'temporarily_unavailable':
      return errorResponse(c, 'temporarily_unavailable');
    case 'caller_gone':
      // Nobody is listening; the status only shows in access logs.
      return new Response(null, { status: 499 });
    case 'internal':
      return errorResponse(c, 'internal', result.message);
  }
}

export function registerClarificationRoutes(app: Hono<AppEnv>, deps: ClarificationRouteDeps): void {
  const { clarification } = deps;

  app.post('/api/v1/clarification/:pendingId/respond', async (c) => {
    const pendingId = c.req.param('pendingId');
    const body = await parseJsonBody(c, respondInput);
    if (!body.ok) return body.response;
    if (!PENDING_ID_PATTERN.test(pendingId)) {
      return errorResponse(c, 'not_found', 'clarification request not found');
    }
    const result = await clarification.respond(
      c.get('principal'),
      pendingId,
      body.value,
      c.req.raw.signal,
    );
    return respondResponse(c, result);
  });

  app.post('/api/v1/clarification/:pendingId/cancel', async (c) => {
    const pendingId = c.req.param('pendingId');
    if (!PENDING_ID_PATTERN.test(pendingId)) {
      return errorResponse(c, 'not_found', 'clarification request not found');
    }
    const result = await clarification.cancel(c.get('principal'), pendingId);
    if (result.ok) return c.json({ cancelled: true });
    return result.code === 'not_found'
      ? errorResponse(c, 'not_found', 'clarification request not found')
      : errorResponse(c, 'not_active');
  });

  app.get('/api/v1/pending', async (c) => {
    const limit = c.req.query('limit');
    const cursor = c.req.query('cursor');
    const result = await listPendingBundles(deps.store, c.get('principal'), {
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit: Number(limit) }),
    });
    if (!result.ok) return errorResponse(c, 'invalid_request', 'invalid page', result.issues);
    return c.json({ bundles: result.page.pending, next_cursor: result.page.next_cursor });
  });

  app.get('/api/v1/clarification/:pendingId', async (c) => {
    const pendingId = c.req.param('pendingId');
    const view = !PENDING_ID_PATTERN.test(pendingId)
      ? undefined
      : await clarification.get(c.get('principal'), pendingId);
    if (!view) return errorResponse(c, 'not_found', 'clarification request not found');
    return c.json(view);
  });
}
