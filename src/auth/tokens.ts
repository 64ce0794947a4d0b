/**
 * Token secrets and what they resolve to. A secret is `clr_` plus 32 random
 * bytes in base64url; it is returned once, when issued, and only its SHA-256
 * hex hash is stored. Each channel accepts its own kinds: a bearer header
 * takes `user`, `preset`, `agent` and `external_agent` tokens, the session
 * cookie only `browser` tokens,
 * and a `sign_in` token authenticates nothing until it is redeemed.
 */
import {
  BROWSER_SESSION_TTL_MS,
  CREDENTIAL_LOOKUP_MAX_MS,
  SIGN_IN_REDEEM_MAX_MS,
  SIGN_IN_TOKEN_TTL_MS,
  TOKEN_LAST_USED_INTERVAL_MS,
} from '../tunables.js';
import { createHash, randomBytes } from 'node:crypto';
import type { RepoContext } from '../store/index.js';
import type { ApiTokenKind } from '../store/index.js';
import { EXHAUSTED, withinFreshBudget, systemTimers, type Timers } from '../support/index.js';
import {
  StorageUnavailableError,
  deleteToken,
  findLiveToken,
  insertToken,
  liveTokenHashes,
  MAX_LIVE_TOKEN_HASHES,
  redeemToken,
  touchTokenUse,
  wallTimestamp,
  type LiveToken,
  type TokenRecord,
} from '../store/index.js';
import type { TokenHolder } from './principal.js';

export const TOKEN_PREFIX = 'clr_';
const SECRET_BYTES = 32;
/** Longer values are not ours; refusing them early saves hashing attacker-sized input. */
const MAX_SECRET_LENGTH = 512;

export { BROWSER_SESSION_TTL_MS, SIGN_IN_TOKEN_TTL_MS };

export type CredentialChannel = 'bearer' | 'cookie';

const CHANNEL_KINDS: Record<CredentialChannel, readonly ApiTokenKind[]> = {
  bearer: ['user', 'preset', 'agent', 'external_agent'],
  cookie: ['browser'],
};

const TTL_MS: Record<ApiTokenKind, number | undefined> = {
  user: undefined,
  preset: undefined,
  agent: undefined,
  external_agent: undefined,
  sign_in: SIGN_IN_TOKEN_TTL_MS,
  browser: BROWSER_SESSION_TTL_MS,
};

export function generateSecret(): string {
  return `${TOKEN_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export type TokenRequest =
  | {
      readonly kind: 'user' | 'external_agent' | 'sign_in' | 'browser';
      readonly userId: string;
      /** A personal token's label, or who minted a sign-in link. */
      readonly name?: string;
      /** Replaces the kind's lifetime (a sign-in link minted on demand is shorter). */
      readonly ttlMs?: number;
    }
  | { readonly kind: 'agent'; readonly userId: string; readonly sessionId: string };

export interface IssuedToken {
  /** Shown to its holder this once; not recoverable afterwards. */
  readonly secret: string;
  readonly record: TokenRecord;
}

/** Stores a new token; its lifetime follows from its kind. */
export async function issueToken(ctx: RepoContext, request: TokenRequest): Promise<IssuedToken> {
  const secret = generateSecret();
  const ttlMs = (request.kind === 'agent' ? undefined : request.ttlMs) ?? TTL_MS[request.kind];
  const record = await insertToken(ctx, {
    userId: request.userId,
    kind: request.kind,
    tokenHash: hashSecret(secret),
    sessionId: request.kind === 'agent' ? request.sessionId : null,
    expiresAt: ttlMs === undefined ? null : wallTimestamp(ctx.clock, ttlMs),
    name: request.kind === 'agent' ? null : (request.name ?? null),
  });
  return { secret, record };
}

/** Who holds `secret` on this channel; `undefined` for unknown, spent or wrong-channel tokens. */
export async function resolveToken(
  ctx: RepoContext,
  secret: string,
  channel: CredentialChannel,
): Promise<TokenHolder | undefined> {
  if (!plausibleSecret(secret)) return undefined;
  const token = await findLiveToken(ctx, hashSecret(secret), CHANNEL_KINDS[channel]);
  if (!token) return undefined;
  if (token.kind === 'user' || token.kind === 'external_agent') await noteTokenUse(ctx, token);
  if (token.kind === 'external_agent') return { kind: 'external_agent', userId: token.userId };
  if (token.kind === 'agent') {
    // An agent token without a session would reach nothing; refuse it outright.
    if (token.sessionId === null) return undefined;
    return { kind: 'agent', userId: token.userId, sessionId: token.sessionId };
  }
  return { kind: 'user', userId: token.userId, name: token.userName, isAdmin: token.isAdmin };
}

/** How long a request's credential lookup may wait for the database, and the timers that say so. */
export interface CredentialLookupBound {
  readonly ms: number;
  readonly timers: Timers;
}

export const CREDENTIAL_LOOKUP_BOUND: CredentialLookupBound = {
  ms: CREDENTIAL_LOOKUP_MAX_MS,
  timers: systemTimers,
};

/**
 * `resolveToken` for a request, which waits for it before anything else: past
 * `bound.ms` without the database's answer (frozen, cut off) it fails as a
 * storage fault (`unreachable`, a 503 with `Retry-After`). The lookup itself
 * goes on until the store's own bounds end it; nobody waits for it.
 */
export async function resolveTokenWithin(
  ctx: RepoContext,
  secret: string,
  channel: CredentialChannel,
  bound: CredentialLookupBound = CREDENTIAL_LOOKUP_BOUND,
): Promise<TokenHolder | undefined> {
  const holder = await withinFreshBudget(bound.ms, ctx.clock, bound.timers, () =>
    resolveToken(ctx, secret, channel),
  );
  if (holder === EXHAUSTED) {
    throw new StorageUnavailableError(
      'unreachable',
      `no answer to the credential lookup within ${bound.ms} ms`,
    );
  }
  return holder;
}

/**
 * Which of `tokenHashes` (of secrets `resolveToken` accepted on `channel`)
 * still authenticate there: a revoked token's row is gone, an expired one is
 * past its time. For calls that outlive their request's check.
 */
export async function liveTokensAmong(
  ctx: RepoContext,
  tokenHashes: readonly string[],
  channel: CredentialChannel,
): Promise<Set<string>> {
  const live = new Set<string>();
  for (let start = 0; start < tokenHashes.length; start += MAX_LIVE_TOKEN_HASHES) {
    const chunk = tokenHashes.slice(start, start + MAX_LIVE_TOKEN_HASHES);
    for (const hash of await liveTokenHashes(ctx, chunk, CHANNEL_KINDS[channel])) live.add(hash);
  }
  return live;
}

export type SignInOutcome =
  | {
      readonly ok: true;
      readonly userId: string;
      readonly browserSecret: string;
      /** The new browser session's record ID. */
      readonly browserSessionId: string;
    }
  | { readonly ok: false; readonly code: 'link_invalid' };

/**
 * Spends a one-time sign-in secret and opens a browser session for its user.
 * Run it in a transaction so a failure after the redemption leaves the link
 * unused. Unknown, used and expired links give the same outcome.
 */
export async function redeemSignIn(ctx: RepoContext, secret: string): Promise<SignInOutcome> {
  if (!plausibleSecret(secret)) return { ok: false, code: 'link_invalid' };
  const redeemed = await redeemToken(ctx, hashSecret(secret), 'sign_in');
  if (!redeemed) return { ok: false, code: 'link_invalid' };
  const browser = await issueToken(ctx, { kind: 'browser', userId: redeemed.user_id });
  return {
    ok: true,
    userId: redeemed.user_id,
    browserSecret: browser.secret,
    browserSessionId: browser.record.id,
  };
}

/** The bearer secret, `undefined` without an Authorization header, `null` when it is malformed. */
export function bearerSecret(header: string | null | undefined): string | null | undefined {
  if (header === null || header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** How long a sign-in link's redemption may wait for the database, and the timers that say so. */
export const SIGN_IN_REDEEM_BOUND: CredentialLookupBound = {
  ms: SIGN_IN_REDEEM_MAX_MS,
  timers: systemTimers,
};

/** Ends a browser session; true when it existed. */
export async function revokeBrowserSession(ctx: RepoContext, secret: string): Promise<boolean> {
  if (!plausibleSecret(secret)) return false;
  return deleteToken(ctx, hashSecret(secret), 'browser');
}

/**
 * Keeps a personal token's `last_used_at` roughly current: a write only when
 * the value read with the token is older than the interval, so the hot paths
 * (respond with a bearer token) stay reads. Approximate by design: a touch
 * the storage refuses is simply tried again at the token's next use, and
 * never fails the request it rides on.
 */
async function noteTokenUse(ctx: RepoContext, token: LiveToken): Promise<void> {
  const staleBefore = wallTimestamp(ctx.clock, -TOKEN_LAST_USED_INTERVAL_MS);
  if (token.lastUsedAt !== null && token.lastUsedAt > staleBefore) return;
  await touchTokenUse(ctx, token.id, wallTimestamp(ctx.clock), staleBefore).catch(
    (error: unknown) => error,
  );
}

function plausibleSecret(secret: string): boolean {
  return secret.length > 0 && secret.length <= MAX_SECRET_LENGTH;
}
