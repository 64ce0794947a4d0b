/**
 * Credentials a person mints for themselves over REST: one-time sign-in links
 * (for their phone, or, for an admin, for another user) and personal API
 * tokens. Only a person mints: an agent's token is already refused on every
 * state-changing route by the auth middleware, and its reads here are refused
 * too (`forbidden`), since an agent has no tokens of its own to list.
 * Every reply that holds a secret is `Cache-Control: no-store`. A token made
 * or revoked is announced by `AccountService`, not here.
 */
import type { Context, Hono } from 'hono';
import {
  personalTokensOf,
  signInLinkFor,
  type AccountService,
  type UserPrincipal,
} from '../auth/index.js';
import type { Store } from '../store/index.js';
import {
  newTokenBody,
  signInLinkBody,
  textProblem,
  unpagedListQuery,
  type SignInLinkBody,
} from '../wire/index.js';
import { principalOf } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody, parseQuery, type BodyResult } from './request-guards.js';

export interface TokenRouteDeps {
  readonly store: Store;
  /**
   * Where links point: `CLARION_PUBLIC_ORIGIN`, else the server's own URL.
   * Without it (apps built in tests), the request's own origin.
   */
  readonly linkOrigin?: () => string;
  /** Tokens made and revoked, each announced by the service once committed. */
  readonly accounts: AccountService;
}

/** The origin a minted link starts with. */
export function linkOriginOf(c: Context, deps: { linkOrigin?: () => string }): string {
  return deps.linkOrigin?.() ?? new URL(c.req.url).origin;
}

function person(c: Context<AppEnv>): { ok: true; principal: UserPrincipal } | Response {
  const principal = principalOf(c);
  if (!principal) return errorResponse(c, 'unauthorized');
  if (principal.kind !== 'user') return errorResponse(c, 'forbidden');
  return { ok: true, principal };
}

/**
 * No bytes read as `{}`, whatever the media type: clients that label every
 * request JSON send one with no body. Anything else must be JSON.
 */
async function signInLinkRequest(c: Context): Promise<BodyResult<SignInLinkBody>> {
  const bytes = await c.req.raw.clone().arrayBuffer();
  if (bytes.byteLength === 0) return { ok: true, value: {} };
  return parseJsonBody(c, signInLinkBody);
}

export function registerTokenRoutes(app: Hono<AppEnv>, deps: TokenRouteDeps): void {
  const { store, accounts } = deps;

  app.post('/api/v1/auth/sign-in-links', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const body = await signInLinkRequest(c);
    if (!body.ok) return body.response;
    const result = await signInLinkFor(store, caller.principal, {
      userId: body.value.user_id,
      origin: linkOriginOf(c, deps),
    });
    if (!result.ok) return failureResponse(c, result);
    c.header('Cache-Control', 'no-store');
    return c.json({ url: result.url, expires_at: result.expires_at }, 201);
  });

  app.post('/api/v1/tokens', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const body = await parseJsonBody(c, newTokenBody);
    if (!body.ok) return body.response;
    const result = await accounts.createToken(caller.principal, body.value);
    if (!result.ok) return failureResponse(c, result);
    c.header('Cache-Control', 'no-store');
    return c.json({ token: result.token, secret: result.secret }, 201);
  });

  app.get('/api/v1/tokens', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json({ tokens: await personalTokensOf(store, caller.principal) });
  });

  app.delete('/api/v1/tokens/:id', async (c) => {
    const caller = person(c);
    if (caller instanceof Response) return caller;
    const id = c.req.param('id');
    // A NUL (`%00`) is no record ID and PostgreSQL refuses it as a parameter: unknown, no query.
    if (textProblem(id) !== undefined) return errorResponse(c, 'not_found', 'unknown token');
    const result = await accounts.revokeToken(caller.principal, id, {
      waitedMs: c.get('credentialLookupMs'),
    });
    if (!result.ok) return failureResponse(c, result);
    return c.body(null, 204);
  });
}
