/**
 * A person's own API tokens: `user` ones act as the person; `agent` ones
 * (stored as `external_agent`) are for an agent the person runs, which asks
 * and waits through `/mcp` and never decides. Made with a name, listed by name,
 * creation and approximate last use, revoked at once. The secret is returned
 * only when made; a list never holds a secret or a hash. Someone else's token
 * is `not_found`, the same as one that does not exist, and at most
 * `MAX_TOKENS_PER_USER` live at once, so a script's loop cannot fill the table.
 */
import {
  countLiveTokens,
  deletePersonalToken,
  listPersonalTokens,
  lockUserRow,
  PERSONAL_TOKEN_KINDS,
  type Store,
  type TokenRecord,
} from '../store/index.js';
import {
  failure,
  MAX_TOKENS_PER_USER,
  type Failure,
  type NewTokenReply,
  type PersonalTokenKind,
  type TokenView,
} from '../wire/index.js';
import type { UserPrincipal } from './accounts.js';
import { boundedTransaction, type RequestBound } from './request-bound.js';
import { issueToken } from './tokens.js';

export function tokenView(record: TokenRecord): TokenView {
  return {
    id: record.id,
    name: record.name ?? '',
    kind: record.kind === 'external_agent' ? 'agent' : 'user',
    created_at: record.created_at,
    last_used_at: record.last_used_at,
  };
}

export type NewTokenResult = ({ ok: true } & NewTokenReply) | Failure<'conflict' | 'unauthorized'>;

export function createPersonalToken(
  store: Store,
  owner: UserPrincipal,
  request: { readonly name: string; readonly kind: PersonalTokenKind },
): Promise<NewTokenResult> {
  return store.transaction(async (tx): Promise<NewTokenResult> => {
    // Counting and adding must not interleave with a second request's.
    if (!(await lockUserRow(tx, owner.userId))) return failure('unauthorized');
    if ((await countLiveTokens(tx, owner.userId, PERSONAL_TOKEN_KINDS)) >= MAX_TOKENS_PER_USER) {
      return failure(
        'conflict',
        `you already hold ${MAX_TOKENS_PER_USER} tokens, the most allowed; revoke one first`,
        { reason: 'token_limit', limit: MAX_TOKENS_PER_USER },
      );
    }
    const issued = await issueToken(tx, {
      kind: request.kind === 'agent' ? 'external_agent' : 'user',
      userId: owner.userId,
      name: request.name,
    });
    return { ok: true, token: tokenView(issued.record), secret: issued.secret };
  });
}

export async function personalTokensOf(store: Store, owner: UserPrincipal): Promise<TokenView[]> {
  return (await listPersonalTokens(store, owner.userId)).map(tokenView);
}

/** Revokes at once: the row goes, and the next request with the secret is refused. */
export async function revokePersonalToken(
  store: Store,
  owner: UserPrincipal,
  tokenId: string,
  request: RequestBound = { waitedMs: 0 },
): Promise<{ ok: true } | Failure<'not_found'>> {
  // A revocation answered 503 must leave the token working, as the caller will find it.
  const deleted = await boundedTransaction(store, request, "the token's revocation", (tx) =>
    deletePersonalToken(tx, owner.userId, tokenId),
  );
  return deleted ? { ok: true } : failure('not_found', 'unknown token');
}
