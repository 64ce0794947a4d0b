/**
 * Signing in over HTTP as the web app does: open the link (`GET
 * /auth/sign-in`, which spends nothing and hands the secret to
 * `/sign-in#<secret>`), then redeem that secret with the app's same-origin
 * `POST /api/v1/auth/sign-in`. For suites that need a browser's session
 * cookie without a browser; `send` is `app.request` or a `fetch` bound to a
 * server (with `redirect: 'manual'`).
 */
import { SIGN_IN_PAGE_PATH, SIGN_IN_REDEEM_PATH } from '../../src/wire/index.js';

export type Send = (path: string, init?: RequestInit) => Promise<Response> | Response;

export const SESSION_COOKIE_NAME = 'clarion_session';

/** `send` over `fetch` to `baseUrl`, never following a redirect. */
export function sendTo(baseUrl: string): Send {
  return (path, init = {}) => fetch(`${baseUrl}${path}`, { redirect: 'manual', ...init });
}

/** The path and query of a minted link, to open on whichever server `send` reaches. */
export function linkPath(link: string): string {
  const url = new URL(link, 'http://link.invalid');
  return `${url.pathname}${url.search}`;
}

/** The secret the link's GET hands the web app; `undefined` when it sends it elsewhere. */
export async function openSignInLink(send: Send, link: string): Promise<string | undefined> {
  const response = await send(linkPath(link));
  const location = response.headers.get('location') ?? '';
  const prefix = `${SIGN_IN_PAGE_PATH}#`;
  if (response.status !== 303 || !location.startsWith(prefix)) return undefined;
  return decodeURIComponent(location.slice(prefix.length));
}

export interface RedeemOptions {
  /** The page's origin, as a browser sends it; the server's own unless a test says otherwise. */
  readonly origin: string;
  /** The session cookie the browser already holds. */
  readonly cookie?: string;
  readonly switchAccount?: boolean;
}

/** The web app's POST for `secret`. */
export function redeemSignIn(
  send: Send,
  secret: string,
  options: RedeemOptions,
): Promise<Response> | Response {
  return send(SIGN_IN_REDEEM_PATH, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: options.origin,
      ...(options.cookie === undefined
        ? {}
        : { cookie: `${SESSION_COOKIE_NAME}=${options.cookie}` }),
    },
    body: JSON.stringify({
      token: secret,
      ...(options.switchAccount === undefined ? {} : { switch_account: options.switchAccount }),
    }),
  });
}

/** The session cookie a response sets, if any. */
export function sessionCookieSet(response: Response): string | undefined {
  const match = new RegExp(`^${SESSION_COOKIE_NAME}=([^;]+)`).exec(
    response.headers.get('set-cookie') ?? '',
  );
  return match?.[1];
}

/** Opens `link` and redeems it from a fresh browser on `origin`: the session cookie, or undefined. */
export async function browserSignIn(
  send: Send,
  link: string,
  origin: string,
): Promise<string | undefined> {
  const secret = await openSignInLink(send, link);
  if (secret === undefined) return undefined;
  const response = await redeemSignIn(send, secret, { origin });
  return response.status === 200 ? sessionCookieSet(response) : undefined;
}
