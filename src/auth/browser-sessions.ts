/**
 * Ending a person's browser sessions: this browser's (sign-out), or every
 * other one of theirs (a lost phone, a shared computer left signed in).
 *
 * Each runs within what is left of the request's credential bound
 * (`CREDENTIAL_LOOKUP_MAX_MS` less the lookup's own wait): past it the
 * request fails as a storage fault (a 503 with `Retry-After`), and the
 * transaction checks the bound as its last step, so a late one rolls back
 * rather than end sessions of a browser told to retry.
 *
 * A session's end takes the Web Push channels it turned on or last renewed
 * with it (the store's cascade), however it ends: a device once signed in
 * hears nothing more of its person.
 */
import {
  deleteOtherBrowserTokens,
  holdBrowserSession,
  type RepoContext,
  type Store,
} from '../store/index.js';
import { boundedTransaction, type RequestBound } from './request-bound.js';
import { hashSecret, revokeBrowserSession } from './tokens.js';

/**
 * The browser session `secret` signs in, held to the end of the caller's
 * transaction (`holdBrowserSession`), for a Web Push channel that is to go
 * with it; `undefined` when it has ended meanwhile.
 */
export function heldBrowserSession(ctx: RepoContext, secret: string): Promise<string | undefined> {
  return holdBrowserSession(ctx, hashSecret(secret));
}

/** `POST /api/v1/auth/sign-out`: ends the session `secret` signs in; true when it existed. */
export function endBrowserSession(
  store: Store,
  secret: string,
  request: RequestBound,
): Promise<boolean> {
  return boundedTransaction(store, request, 'the sign-out', (tx) =>
    revokeBrowserSession(tx, secret),
  );
}

/**
 * `POST /api/v1/auth/sign-out-others`: ends every browser session of
 * `userId` but the one `keepSecret` signs in; how many still signed in.
 */
export function endOtherBrowserSessions(
  store: Store,
  userId: string,
  keepSecret: string,
  request: RequestBound,
): Promise<number> {
  return boundedTransaction(store, request, "the other devices' sign-out", (tx) =>
    deleteOtherBrowserTokens(tx, userId, hashSecret(keepSecret)),
  );
}
