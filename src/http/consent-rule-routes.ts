/**
 * `/api/v1/consent-rules`: a person's "Always allow" rules, listed and
 * revoked (an admin's list and revokes reach everyone's), a revoke recorded
 * with who made it and where (web or API). Only a person has rules: an
 * agent's token is refused here (`forbidden`), on the read too.
 */
import type { Context, Hono } from 'hono';
import type { UserPrincipal } from '../auth/index.js';
import type { ConsentRuleService } from '../turns/index.js';
import { textProblem, unpagedListQuery } from '../wire/index.js';
import { decisionCaller, principalOf } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseQuery } from './request-guards.js';

export interface ConsentRuleRouteDeps {
  /** Lists and revokes; a revoke tells the owner's open pages, and admins', itself. */
  readonly rules: ConsentRuleService;
}

function person(c: Context<AppEnv>): UserPrincipal | Response {
  const principal = principalOf(c);
  if (!principal) return errorResponse(c, 'unauthorized');
  if (principal.kind !== 'user') return errorResponse(c, 'forbidden');
  return principal;
}

export function registerConsentRuleRoutes(app: Hono<AppEnv>, deps: ConsentRuleRouteDeps): void {
  app.get('/api/v1/consent-rules', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json(await deps.rules.list(caller));
  });

  app.delete('/api/v1/consent-rules/:id', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const id = c.req.param('id');
    // A NUL (`%00`) is no record ID and PostgreSQL refuses it as a parameter: unknown, no query.
    if (textProblem(id) !== undefined) return errorResponse(c, 'not_found', 'unknown rule');
    const result = await deps.rules.revoke(caller, decisionCaller(c).surface, id);
    if (!result.ok) return failureResponse(c, result);
    return c.body(null, 204);
  });
}
