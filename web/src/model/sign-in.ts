/**
 * Redeeming a sign-in link from the page it opens (`/sign-in#<secret>`): the
 * server's `GET /auth/sign-in` spent nothing and handed the secret over in the
 * fragment; this same-origin POST, which carries the SameSite=Strict cookie,
 * is what signs in. A browser signed in as someone else is asked first
 * (`signed_in_as_other`), and only the person's Continue sends the switch.
 */
import type { SignedInAsOtherDetails, SignInReply } from '../../../src/wire/index.js';
import { SIGN_IN_REDEEM_PATH } from '../../../src/wire/constants.js';
import { signInSecretOf } from '../../../src/wire/sign-in-secret.js';
import { request, type ApiFailure, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

export function redeemSignInLink(
  token: string,
  switchAccount: boolean,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<SignInReply>> {
  return request(fetchImpl, SIGN_IN_REDEEM_PATH, {
    method: 'POST',
    body: JSON.stringify(switchAccount ? { token, switch_account: true } : { token }),
  });
}

/** What the page does with the server's answer. */
export type SignInOutcome =
  | { kind: 'signed_in' }
  /** Unknown, used or expired: the page every such link leads to. */
  | { kind: 'link_invalid' }
  | { kind: 'ask'; current: string; other: string }
  /** Nothing was decided: the link is unspent unless the server says otherwise, so try again. */
  | { kind: 'unreachable' }
  /** Said in the page's language: the server's words are English. */
  | { kind: 'refused'; failure: ApiFailure };

export function signInOutcome(result: ApiResult<SignInReply>): SignInOutcome {
  if (result.ok) return { kind: 'signed_in' };
  if (result.kind === 'network') return { kind: 'unreachable' };
  if (result.code === 'link_invalid') return { kind: 'link_invalid' };
  const names = result.code === 'signed_in_as_other' ? bothNames(result.details) : undefined;
  if (names) return { kind: 'ask', ...names };
  // A 503 (storage, a budget) is worth the same retry as no answer at all.
  if (result.status === 503) return { kind: 'unreachable' };
  return { kind: 'refused', failure: result };
}

function bothNames(details: unknown): { current: string; other: string } | undefined {
  const named = details as Partial<SignedInAsOtherDetails> | undefined;
  const current = named?.signed_in_as?.name;
  const other = named?.link_for?.name;
  return typeof current === 'string' && typeof other === 'string' ? { current, other } : undefined;
}

/** `/sign-in#<secret>`'s secret, less what mail or prose added after it; empty when it holds none. */
export function secretOfFragment(hash: string): string {
  try {
    return signInSecretOf(decodeURIComponent(hash.replace(/^#/, '')));
  } catch {
    return '';
  }
}
