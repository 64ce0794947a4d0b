/**
 * `/api/v1/clarification/:pendingId` routes: parse, call the service, map
 * the typed result to the wire (DESIGN §5.1). Nothing else is decided here.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { ClarificationService } from '../clarification/index.js';
import { decisionCaller, principalOf } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody, parseQuery } from './request-guards.js';
import { failure, MAX_PENDING_ID_CHARS, pendingListQuery, respondBody } from '../wire/index.js';

/** Pending IDs are UUIDs Clarion mints; anything else is unknown without asking the database. */
const PENDING_ID_PATTERN = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_PENDING_ID_CHARS}}$`);

export interface ClarificationRouteDeps {
  clarification: ClarificationService;
}

const RESPOND_PATH = '/api/v1/clarification/:pendingId/respond';

/**
 * Counts a respond refused with a 503 before it reached the service (its
 * credential lookup got no answer in time: `storage_unavailable`) as an
 * `unavailable` response, as the service counts the 503s it gives itself
 * (`ClarificationService.refusedEarly`). The service is handed only requests
 * the auth middleware gave a principal, so one without a principal was never
 * counted. Mount it before the API's access control, so it sees that reply.
 */
export function countRespondsRefusedEarly(
  app: Hono<AppEnv>,
  clarification: Pick<ClarificationService, 'refusedEarly'>,
): void {
  const count: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    if (c.res.status === 503 && principalOf(c) === undefined) {
      clarification.refusedEarly(failure('storage_unavailable'));
    }
  };
  app.use(RESPOND_PATH, count);
}

export function registerClarificationRoutes(app: Hono<AppEnv>, deps: ClarificationRouteDeps): void {
  const { clarification } = deps;

  app.post(RESPOND_PATH, async (c) => {
    const pendingId = c.req.param('pendingId');
    const body = await parseJsonBody(c, respondBody);
    if (!body.ok) return body.response;
    if (!PENDING_ID_PATTERN.test(pendingId)) {
      return errorResponse(c, 'not_found', 'clarification request not found');
    }
    // The lookup's wait counts against the respond's budget: one budget for the whole request.
    const caller = { ...decisionCaller(c), waitedMs: c.get('credentialLookupMs') };
    const result = await clarification.respond(caller, pendingId, body.value, c.req.raw.signal);
    if (!result.ok) return failureResponse(c, result);
    return c.json({ claimed: result.claimed, status: result.status, response: result.response });
  });

  app.post('/api/v1/clarification/:pendingId/cancel', async (c) => {
    const pendingId = c.req.param('pendingId');
    if (!PENDING_ID_PATTERN.test(pendingId)) {
      return errorResponse(c, 'not_found', 'clarification request not found');
    }
    const result = await clarification.cancel(decisionCaller(c), pendingId);
    return result.ok ? c.json({ cancelled: true }) : failureResponse(c, result);
  });

  app.get('/api/v1/pending', async (c) => {
    const query = parseQuery(c, pendingListQuery);
    if (!query.ok) return query.response;
    const { limit, cursor } = query.value;
    const result = await clarification.listPending(c.get('principal'), {
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit }),
    });
    if (!result.ok) return failureResponse(c, result);
    return c.json({ bundles: result.page.pending, next_cursor: result.page.next_cursor });
  });

  app.get('/api/v1/clarification/:pendingId', async (c) => {
    const pendingId = c.req.param('pendingId');
    if (!PENDING_ID_PATTERN.test(pendingId)) {
      return errorResponse(c, 'not_found', 'clarification request not found');
    }
    const found = await clarification.get(c.get('principal'), pendingId);
    return found.ok ? c.json(found.view) : failureResponse(c, found);
  });
}
