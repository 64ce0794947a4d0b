/**
 * Who is calling, for every `/api/v1` request and every WebSocket upgrade.
 * Credentials come from `Authorization: Bearer` (user and agent tokens) or
 * from the HttpOnly `clarion_session` cookie (browser sessions). A request
 * that relies on the cookie and changes state, or opens a WebSocket, must come
 * from Clarion's own origin: a browser attaches cookies to requests other
 * pages start, but it never lets them forge `Origin` or `Sec-Fetch-Site`.
 * Bearer requests carry their credential explicitly and are exempt.
 *
 * Also owns the browser session's life: sign-in with the one-time link,
 * sign-out, and the sign-out of the person's other browsers. Opening a link spends nothing; the web app's same-origin POST
 * redeems it (`auth/sign-in.ts` says why and on what rule).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { parse as parseCookies } from 'hono/utils/cookie';
import {
  bearerSecret,
  BROWSER_SESSION_TTL_MS,
  resolveTokenWithin,
  SIGN_IN_PATH,
  openedSignInLink,
  type AccountService,
  type CredentialChannel,
  type CredentialLookupBound,
  type DecisionSurface,
  type Principal,
  type TokenHolder,
} from '../auth/index.js';
import type { RepoContext, Store } from '../store/index.js';
import {
  ANSWER_LINK_USE_PATH,
  ANSWER_LINK_VIEW_PATH,
  SIGN_IN_PAGE_PATH,
  signInSecretOf,
  SIGN_IN_REDEEM_PATH,
  signInBody,
  SIGNED_IN_AS_HEADER,
  type SignOutOthersReply,
} from '../wire/index.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import {
  createRequestGuards,
  isStateChanging,
  parseJsonBody,
  type RequestGuardOptions,
} from './request-guards.js';

export const SESSION_COOKIE = 'clarion_session';
export { SIGN_IN_PATH };
export const SIGN_OUT_PATH = '/api/v1/auth/sign-out';
export const SIGN_OUT_OTHERS_PATH = '/api/v1/auth/sign-out-others';
/**
 * Where a link that cannot sign in sends the browser: the web app's styled,
 * translated page saying how to get a new link. The reason is the same for
 * unknown, used and expired links, so the page tells an attacker nothing.
 */
export const LINK_INVALID_LOCATION = '/signed-out?reason=link_invalid';

export interface AuthOptions {
  /**
   * Origins besides the request's own that may use the cookie, such as the
   * public `https://` origin of a TLS-terminating proxy in front of Clarion.
   */
  readonly trustedOrigins?: readonly string[];
  /**
   * How long the credential lookup waits for the database before the request
   * fails `storage_unavailable` (503); `CREDENTIAL_LOOKUP_MAX_MS` by default.
   */
  readonly credentialLookup?: CredentialLookupBound;
}

export type AuthResult =
  | { readonly ok: true; readonly holder: TokenHolder; readonly via: CredentialChannel }
  | { readonly ok: false; readonly code: 'unauthorized' | 'forbidden' };

export { bearerSecret };

export function isWebSocketUpgrade(request: Request): boolean {
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

/**
 * Whether the request was started by a page of Clarion itself: `Origin`
 * equals the request's own origin (or a trusted one); without `Origin`, the
 * browser's `Sec-Fetch-Site` must say `same-origin`.
 */
export function isOwnOrigin(request: Request, trustedOrigins: readonly string[] = []): boolean {
  const origin = request.headers.get('origin');
  if (origin !== null) {
    return origin === new URL(request.url).origin || trustedOrigins.includes(origin);
  }
  return request.headers.get('sec-fetch-site') === 'same-origin';
}

/**
 * The full decision for one request. An Authorization header, when present,
 * is the only credential considered: a bad one is never rescued by a cookie.
 * A database that does not answer the lookup within its bound throws a
 * storage fault (a 503), never a 401 that would send a client to sign in again.
 */
export async function authenticateRequest(
  ctx: RepoContext,
  request: Request,
  options: AuthOptions = {},
): Promise<AuthResult> {
  const bearer = bearerSecret(request.headers.get('authorization'));
  if (bearer !== undefined) {
    const holder =
      bearer === null
        ? undefined
        : await resolveTokenWithin(ctx, bearer, 'bearer', options.credentialLookup);
    return holder ? { ok: true, holder, via: 'bearer' } : { ok: false, code: 'unauthorized' };
  }
  const cookie = sessionCookieOf(request);
  if (cookie === undefined) return { ok: false, code: 'unauthorized' };
  const holder = await resolveTokenWithin(ctx, cookie, 'cookie', options.credentialLookup);
  if (!holder) return { ok: false, code: 'unauthorized' };
  const needsOrigin = isStateChanging(request.method) || isWebSocketUpgrade(request);
  if (needsOrigin && !isOwnOrigin(request, options.trustedOrigins)) {
    return { ok: false, code: 'forbidden' };
  }
  return { ok: true, holder, via: 'cookie' };
}

/**
 * For the WebSocket route: the caller of an upgrade request, or `undefined` to
 * refuse it. An external agent's token reaches only `/mcp`.
 */
export async function resolvePrincipal(
  ctx: RepoContext,
  request: Request,
  options: AuthOptions = {},
): Promise<Principal | undefined> {
  const holder = await resolveTokenHolder(ctx, request, options);
  return holder?.kind === 'external_agent' ? undefined : holder;
}

/** For `/mcp`: whoever holds the request's token, external agents included. */
export async function resolveTokenHolder(
  ctx: RepoContext,
  request: Request,
  options: AuthOptions = {},
): Promise<TokenHolder | undefined> {
  const result = await authenticateRequest(ctx, request, options);
  return result.ok ? result.holder : undefined;
}

export interface AuthDeps extends AuthOptions {
  readonly store: RepoContext;
}

/** `resolvePrincipal` bound to the store and options, for routes that see raw requests. */
export function createPrincipalResolver(
  deps: AuthDeps,
): (request: Request) => Promise<Principal | undefined> {
  return (request) => resolvePrincipal(deps.store, request, deps);
}

/** `resolveTokenHolder` bound to the store and options, for `/mcp`. */
export function createTokenHolderResolver(
  deps: AuthDeps,
): (request: Request) => Promise<TokenHolder | undefined> {
  return (request) => resolveTokenHolder(deps.store, request, deps);
}

/**
 * A page of the web app names the person it signed in as; the cookie, shared
 * by the browser's tabs, may sign in someone else since another tab signed in.
 * Returns that someone else. A bearer token is its holder's own, whatever a
 * request names.
 */
export function signedInSince(
  via: CredentialChannel,
  holder: TokenHolder,
  pageSignedInAs: string | undefined,
): Extract<TokenHolder, { kind: 'user' }> | undefined {
  return via === 'cookie' &&
    holder.kind === 'user' &&
    pageSignedInAs !== undefined &&
    pageSignedInAs !== holder.userId
    ? holder
    : undefined;
}

/** Sets `principal` for the routes after it, or answers 401/403 itself. */
export function createAuthMiddleware(deps: AuthDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A link's secret in the body is these routes' credential, so no cookie is needed (sign-in
    // reads the cookie itself); a bearer is still checked, and an agent's refused, as on every write.
    if (OWN_CREDENTIAL_PATHS.has(c.req.path) && !c.req.header('authorization')) return next();
    const { clock } = deps.store;
    const started = clock.nowMs();
    const result = await authenticateRequest(deps.store, c.req.raw, deps);
    if (!result.ok) return errorResponse(c, result.code);
    const { holder } = result;
    // The cookie is the browser's, shared by its tabs: a page that signed in as one person must
    // not act as another whom a later tab signed in. Nothing runs; the page learns who it is now.
    const since = signedInSince(result.via, holder, c.req.header(SIGNED_IN_AS_HEADER));
    if (since) {
      return errorResponse(c, 'session_changed', undefined, {
        signed_in_as: { id: since.userId, name: since.name },
      });
    }
    // Only a person decides (DESIGN §6): an agent's token reads its own session, and asks over MCP.
    if (holder.kind !== 'user' && isStateChanging(c.req.method)) {
      const why = holder.kind === 'external_agent' ? EXTERNAL_AGENT_NO_CHANGE : AGENT_READ_ONLY;
      return errorResponse(c, 'person_required', why);
    }
    if (holder.kind === 'external_agent') {
      return errorResponse(c, 'forbidden', EXTERNAL_AGENT_MCP_ONLY);
    }
    c.set('principal', holder);
    c.set('surface', result.via === 'cookie' ? 'web' : 'rest');
    c.set('credentialLookupMs', clock.nowMs() - started);
    await next();
    return;
  };
}

const OWN_CREDENTIAL_PATHS: ReadonlySet<string> = new Set([
  ANSWER_LINK_VIEW_PATH,
  ANSWER_LINK_USE_PATH,
  SIGN_IN_REDEEM_PATH,
]);

const AGENT_READ_ONLY =
  "an agent's token can only read its own session; a person makes every change and decision";
const EXTERNAL_AGENT_NO_CHANGE =
  "an external agent's token changes nothing over REST; it asks and waits on /mcp, and a person " +
  'makes every change and decision';
const EXTERNAL_AGENT_MCP_ONLY =
  "an external agent's token works only on /mcp, where it asks and waits for the person";

/** The caller of a decision route, as the services take it. */
export function decisionCaller(c: Context<AppEnv>): {
  principal: Principal;
  surface: DecisionSurface;
} {
  return { principal: c.get('principal'), surface: c.get('surface') };
}

/**
 * The principal the middleware set, or `undefined` if a route was registered
 * ahead of it: routes then answer 401 instead of trusting a missing value.
 */
export function principalOf(c: Context<AppEnv>): Principal | undefined {
  const principal: Principal | undefined = c.get('principal');
  return principal;
}

export interface SessionRouteDeps {
  readonly store: Store;
  /** Marks the cookie `Secure` even on plain-HTTP requests, behind a TLS proxy. */
  readonly secureCookies?: boolean;
  /** Origins besides the request's own whose pages may sign in (`AuthOptions`). */
  readonly trustedOrigins?: readonly string[];
  /**
   * Sign-in and sign-out: a browser session ended (or replaced) is announced
   * by the service, and its open events sockets close.
   */
  readonly accounts: AccountService;
}

/**
 * `GET /auth/sign-in?token=…`, `POST /api/v1/auth/sign-in`,
 * `POST /api/v1/auth/sign-out` and `POST /api/v1/auth/sign-out-others`;
 * mount the auth middleware first.
 */
export function registerSessionRoutes(app: Hono<AppEnv>, deps: SessionRouteDeps): void {
  app.get(SIGN_IN_PATH, async (c) => {
    // The URL holds a secret: keep it out of caches and out of the next page's Referer.
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    // Hono answers HEAD with the GET handler; a link checker's HEAD must not spend the link.
    if (c.req.method === 'HEAD') return c.body(null, 200);
    const secret = signInSecretOf(c.req.query('token') ?? '');
    // 303 like a live link: the app renders the page, in the person's language. A database that
    // does not answer leaves it unknown: the page's redemption says to retry, and spends nothing.
    if ((await openedSignInLink(deps.store, secret)) === 'invalid') {
      return c.redirect(LINK_INVALID_LOCATION, 303);
    }
    // Spends nothing: a cross-site click carries no Strict cookie, so this request cannot tell
    // whom the browser is signed in as. The fragment reaches no server, log or Referer.
    return c.redirect(`${SIGN_IN_PAGE_PATH}#${encodeURIComponent(secret)}`, 303);
  });

  app.post(SIGN_IN_REDEEM_PATH, async (c) => {
    c.header('Cache-Control', 'no-store');
    // Another site's page must not sign this browser in as anyone, whether it has a cookie or not.
    if (!isOwnOrigin(c.req.raw, deps.trustedOrigins)) {
      return errorResponse(c, 'forbidden', CROSS_SITE_SIGN_IN);
    }
    const body = await parseJsonBody(c, signInBody);
    if (!body.ok) return body.response;
    const result = await deps.accounts.signIn({
      secret: body.value.token,
      currentSecret: sessionCookieOf(c.req.raw),
      switchAccount: body.value.switch_account === true,
    });
    if (!result.ok) return failureResponse(c, result);
    setCookie(c, SESSION_COOKIE, result.browserSecret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: isSecure(c, deps),
      maxAge: Math.floor(BROWSER_SESSION_TTL_MS / 1000),
    });
    return c.json({ user: result.user });
  });

  app.post(SIGN_OUT_PATH, async (c) => {
    const principal = principalOf(c);
    if (!principal) return errorResponse(c, 'unauthorized');
    // A bearer is the request's only credential (`authenticateRequest`): a 204 would read as
    // ended while the token still works, so the script is told where tokens are revoked.
    if (c.get('surface') !== 'web') return errorResponse(c, 'not_a_browser_session');
    const cookie = getCookie(c, SESSION_COOKIE);
    const waited = { waitedMs: c.get('credentialLookupMs') };
    if (cookie !== undefined) await deps.accounts.signOut(principal.userId, cookie, waited);
    deleteCookie(c, SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: isSecure(c, deps),
    });
    return c.body(null, 204);
  });

  // A lost phone or a shared computer keeps its session for 30 days; this ends them from here.
  app.post(SIGN_OUT_OTHERS_PATH, async (c) => {
    const principal = principalOf(c);
    if (!principal) return errorResponse(c, 'unauthorized');
    // The session kept is the request's own: a bearer has none to keep, so it ends nothing.
    const cookie = c.get('surface') === 'web' ? getCookie(c, SESSION_COOKIE) : undefined;
    if (cookie === undefined) return errorResponse(c, 'not_a_browser_session');
    // Their events sockets close now, on every replica, as after a sign-out (the service's news).
    const ended = await deps.accounts.signOutOthers(principal.userId, cookie, {
      waitedMs: c.get('credentialLookupMs'),
    });
    return c.json({ ended } satisfies SignOutOthersReply);
  });
}

const CROSS_SITE_SIGN_IN = 'a sign-in link is redeemed only by a page of this server';

function isSecure(c: Context, deps: SessionRouteDeps): boolean {
  return deps.secureCookies === true || new URL(c.req.url).protocol === 'https:';
}

/** The secret a request authenticates with, as `authenticateRequest` reads it: a bearer first. */
export function requestCredential(
  request: Request,
): { secret: string; channel: CredentialChannel } | undefined {
  const bearer = bearerSecret(request.headers.get('authorization'));
  if (bearer !== undefined)
    return bearer === null ? undefined : { secret: bearer, channel: 'bearer' };
  const cookie = sessionCookieOf(request);
  return cookie === undefined ? undefined : { secret: cookie, channel: 'cookie' };
}

function sessionCookieOf(request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  const value = parseCookies(header, SESSION_COOKIE)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

export interface ApiAccessDeps extends AuthDeps, RequestGuardOptions {}

/**
 * Mounts authentication, then the body guards, on `/api/v1/*`. Call it before
 * registering any `/api/v1` route: Hono runs handlers in registration order.
 */
export function mountApiAccess(app: Hono<AppEnv>, deps: ApiAccessDeps): void {
  app.use('/api/v1/*', createAuthMiddleware(deps));
  app.use('/api/v1/*', createRequestGuards(deps));
}
