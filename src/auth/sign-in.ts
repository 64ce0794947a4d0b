/**
 * Redeeming a one-time sign-in link, from the web app's same-origin POST.
 * Opening a link (`GET /auth/sign-in`) only asks `signInLinkIsLive`, which
 * spends nothing: a cross-site navigation carries no SameSite=Strict cookie,
 * so only the POST can see who the browser is signed in as already.
 *
 * The rule (login CSRF: a person may send a colleague their own link): a
 * browser with no session, or one signed in as the link's person, is signed
 * in at once; one signed in as someone else is refused with both names and
 * the link left unspent, until the person there chooses to switch. Every
 * sign-in over a live session ends the session it replaces, the same
 * person's too: the browser drops that cookie, and a copy of it kept
 * elsewhere must not sign in for the rest of its 30 days. Only that one
 * ends: the person's other browsers keep theirs. After a switch no other
 * tab of that browser goes on showing the earlier person while its
 * requests carry the new cookie. The device's Web Push channels stay with
 * the same person's new session, and go with the session a switch ends.
 *
 * Both calls are bounded by `SIGN_IN_REDEEM_MAX_MS`, the redemption's reading
 * of the browser's own session included: past it the request fails as a
 * storage fault (a 503 with `Retry-After`), and the transaction checks the
 * bound as its last step, so it rolls back rather than spend the link of a
 * person told to retry.
 */
import {
  findLiveToken,
  handOverBrowserChannels,
  isStorageUnavailable,
  type RepoContext,
  type Store,
} from '../store/index.js';
import {
  failure,
  MAX_SIGN_IN_TOKEN_CHARS,
  type Failure,
  type SignInPerson,
} from '../wire/index.js';
import { withinBound } from './request-bound.js';
import {
  hashSecret,
  redeemSignIn,
  resolveToken,
  revokeBrowserSession,
  SIGN_IN_REDEEM_BOUND,
  type CredentialLookupBound,
} from './tokens.js';

/** Who a browser is signed in as when it opens a link, with that session's own secret. */
export interface BrowserSession {
  readonly userId: string;
  readonly name: string;
  readonly secret: string;
}

export interface LinkSignIn {
  readonly secret: string;
  /** The browser's session cookie, if it sent one: whom it still signs in is read here. */
  readonly currentSecret: string | undefined;
  /** The person chose to leave `current` for the link's person. */
  readonly switchAccount: boolean;
}

export type LinkSignInResult =
  | {
      readonly ok: true;
      readonly user: SignInPerson;
      readonly browserSecret: string;
      /** The person whose session in this browser the sign-in ended (a switch's, or the same). */
      readonly replaced: string | undefined;
    }
  | Failure<'link_invalid' | 'signed_in_as_other'>;

/** `POST /api/v1/auth/sign-in`: unknown, used and expired links all fail `link_invalid`. */
export async function signInWithLink(
  store: Store,
  request: LinkSignIn,
  bound: CredentialLookupBound = SIGN_IN_REDEEM_BOUND,
): Promise<LinkSignInResult> {
  return withinBound(store, bound, "the sign-in link's redemption", (budget) =>
    store.transaction(
      async (tx): Promise<LinkSignInResult> => {
        const link = await findLiveToken(tx, hashSecret(request.secret), ['sign_in']);
        if (!link) return failure('link_invalid');
        const linkFor = { id: link.userId, name: link.userName };
        const current = await browserSessionOf(tx, request.currentSecret);
        const other = current?.userId === link.userId ? undefined : current;
        if (other && !request.switchAccount) {
          return failure('signed_in_as_other', undefined, {
            signed_in_as: { id: other.userId, name: other.name },
            link_for: linkFor,
          });
        }
        // One statement spends it: of two redemptions racing past the read, one gets it.
        const redeemed = await redeemSignIn(tx, request.secret);
        if (!redeemed.ok) return failure('link_invalid');
        const replaced = current;
        if (replaced && !other) {
          await handOverBrowserChannels(tx, hashSecret(replaced.secret), redeemed.browserSessionId);
        }
        if (replaced) await revokeBrowserSession(tx, replaced.secret);
        budget.check();
        return {
          ok: true,
          user: linkFor,
          browserSecret: redeemed.browserSecret,
          replaced: replaced?.userId,
        };
      },
      { signal: budget.signal },
    ),
  );
}

/** `GET /auth/sign-in`: whether the link would still sign in; reads, never spends. */
export function signInLinkIsLive(
  store: Store,
  secret: string,
  bound: CredentialLookupBound = SIGN_IN_REDEEM_BOUND,
): Promise<boolean> {
  return withinBound(store, bound, 'the sign-in link check', async () => {
    // Longer is not Clarion's; refusing it first saves hashing a URL's worth of input.
    if (secret === '' || secret.length > MAX_SIGN_IN_TOKEN_CHARS) return false;
    return (await findLiveToken(store, hashSecret(secret), ['sign_in'])) !== undefined;
  });
}

/**
 * `GET /auth/sign-in`: `signInLinkIsLive`, or `unknown` when the database
 * did not answer. Opening spends nothing, so the page may be handed an
 * unknown link: its redemption tells the person to retry, or that it is used.
 */
export function openedSignInLink(
  store: Store,
  secret: string,
  bound: CredentialLookupBound = SIGN_IN_REDEEM_BOUND,
): Promise<'live' | 'invalid' | 'unknown'> {
  return signInLinkIsLive(store, secret, bound).then(
    (live) => (live ? 'live' : 'invalid'),
    (error: unknown) => {
      if (isStorageUnavailable(error)) return 'unknown';
      throw error;
    },
  );
}

/** Whom the browser's session cookie signs in, if it still does. */
async function browserSessionOf(
  ctx: RepoContext,
  secret: string | undefined,
): Promise<BrowserSession | undefined> {
  if (secret === undefined) return undefined;
  const holder = await resolveToken(ctx, secret, 'cookie');
  return holder?.kind === 'user' ? { userId: holder.userId, name: holder.name, secret } : undefined;
}
