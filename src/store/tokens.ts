/**
 * API token rows. Only SHA-256 hashes of secrets reach this file; issuing and
 * hashing live in `auth/tokens.ts`. A token is live while it is not used and
 * not expired; expiry is compared as text, which is time order because every
 * timestamp has the same fixed-width RFC 3339 form (`support/clock.ts`).
 */
import type { Clock } from '../support/index.js';
import { formatTimestamp } from '../support/index.js';
import { compiledStatement } from './compiled.js';
import type { RepoContext } from './context.js';
import { sessionInScope, type SessionScope } from './leases.js';
import {
  PERSONAL_TOKEN_KINDS,
  type ApiTokenKind,
  type ApiTokensTable,
  type Timestamp,
} from './tables.js';

export type TokenRecord = ApiTokensTable;

/** A live token with what a principal needs from its user. */
export interface LiveToken {
  readonly id: string;
  readonly kind: ApiTokenKind;
  readonly userId: string;
  readonly userName: string;
  readonly isAdmin: boolean;
  readonly sessionId: string | null;
  readonly lastUsedAt: Timestamp | null;
}

export interface NewToken {
  readonly userId: string;
  readonly kind: ApiTokenKind;
  readonly tokenHash: string;
  readonly sessionId?: string | null;
  readonly expiresAt?: Timestamp | null;
  readonly name?: string | null;
}

const NS_PER_MS = 1_000_000n;

/**
 * Wall time as a timestamp, `offsetMs` from now. Expiry uses wall time, not
 * row versions: a version may run a few nanoseconds ahead of the wall clock.
 */
export function wallTimestamp(clock: Clock, offsetMs = 0): Timestamp {
  return formatTimestamp(BigInt(Math.trunc(clock.nowMs() + offsetMs)) * NS_PER_MS);
}

export async function insertToken(ctx: RepoContext, input: NewToken): Promise<TokenRecord> {
  const now = ctx.clock.timestamp();
  const row: TokenRecord = {
    id: ctx.ids.next(),
    user_id: input.userId,
    kind: input.kind,
    token_hash: input.tokenHash,
    task_session_id: input.sessionId ?? null,
    expires_at: input.expiresAt ?? null,
    used_at: null,
    created_at: now,
    updated_at: now,
    name: input.name ?? null,
    last_used_at: null,
  };
  await ctx.db.insertInto('api_tokens').values(row).execute();
  return row;
}

/**
 * Makes `tokenHash` a live, non-expiring token of `userId` and `kind`, with
 * one row per hash whatever ran before: for a secret chosen outside Clarion
 * (`CLARION_ADMIN_TOKEN`) that must keep working across restarts.
 * `changed` is false when the row already said exactly this.
 */
export async function bindToken(
  ctx: RepoContext,
  input: { userId: string; kind: ApiTokenKind; tokenHash: string },
): Promise<{ record: TokenRecord; changed: boolean }> {
  const now = ctx.clock.timestamp();
  const inserted = await ctx.db
    .insertInto('api_tokens')
    .values({
      id: ctx.ids.next(),
      user_id: input.userId,
      kind: input.kind,
      token_hash: input.tokenHash,
      task_session_id: null,
      expires_at: null,
      used_at: null,
      created_at: now,
      updated_at: now,
      name: null,
      last_used_at: null,
    })
    .onConflict((conflict) => conflict.column('token_hash').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { record: inserted, changed: true };

  const existing = await ctx.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('token_hash', '=', input.tokenHash)
    .executeTakeFirstOrThrow();
  const current =
    existing.user_id === input.userId &&
    existing.kind === input.kind &&
    existing.task_session_id === null &&
    existing.expires_at === null &&
    existing.used_at === null;
  if (current) return { record: existing, changed: false };

  const rebound = await ctx.db
    .updateTable('api_tokens')
    .set({
      user_id: input.userId,
      kind: input.kind,
      task_session_id: null,
      expires_at: null,
      used_at: null,
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', '=', existing.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { record: rebound, changed: true };
}

const liveTokenStatement = compiledStatement(
  'live token',
  (ctx: RepoContext, tokenHash: string, now: Timestamp, ...kinds: ApiTokenKind[]) =>
    ctx.db
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select([
        't.id',
        't.kind',
        't.user_id',
        't.task_session_id',
        't.last_used_at',
        'u.name',
        'u.is_admin',
      ])
      .where('t.token_hash', '=', tokenHash)
      .where('t.kind', 'in', kinds)
      .where('t.used_at', 'is', null)
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)])),
);

/** The live token with this hash if its kind is one of `kinds`. */
export async function findLiveToken(
  ctx: RepoContext,
  tokenHash: string,
  kinds: readonly ApiTokenKind[],
): Promise<LiveToken | undefined> {
  if (kinds.length === 0) return undefined;
  const now = wallTimestamp(ctx.clock);
  const [row] = await liveTokenStatement(ctx, String(kinds.length), tokenHash, now, ...kinds);
  if (!row) return undefined;
  return {
    id: row.id,
    kind: row.kind,
    userId: row.user_id,
    userName: row.name,
    isAdmin: row.is_admin === 1,
    sessionId: row.task_session_id,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * Which of `tokenHashes` are live tokens of one of `kinds`: one statement for
 * many, for a watch over the tokens of calls still running. At most
 * `MAX_LIVE_TOKEN_HASHES` a call.
 */
export async function liveTokenHashes(
  ctx: RepoContext,
  tokenHashes: readonly string[],
  kinds: readonly ApiTokenKind[],
): Promise<Set<string>> {
  if (tokenHashes.length === 0 || kinds.length === 0) return new Set();
  if (tokenHashes.length > MAX_LIVE_TOKEN_HASHES) {
    throw new Error(`at most ${MAX_LIVE_TOKEN_HASHES} token hashes a read`);
  }
  const now = wallTimestamp(ctx.clock);
  // One hash is an answer's hand-off asking about its waiter, on the cycle's
  // hot path: compiled once. The watch's many vary in count, and each count
  // kept would be another text in the statement caches.
  const [single] = tokenHashes;
  const rows =
    tokenHashes.length === 1 && single !== undefined
      ? await liveTokenHashStatement(ctx, String(kinds.length), single, now, ...kinds)
      : await liveTokenHashesQuery(ctx, tokenHashes, now, kinds).execute();
  return new Set(rows.map((row) => row.token_hash));
}

function liveTokenHashesQuery(
  ctx: RepoContext,
  tokenHashes: readonly string[],
  now: Timestamp,
  kinds: readonly ApiTokenKind[],
) {
  return ctx.db
    .selectFrom('api_tokens')
    .select('token_hash')
    .where('token_hash', 'in', tokenHashes)
    .where('kind', 'in', kinds)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
}

const liveTokenHashStatement = compiledStatement(
  'live token hash',
  (ctx: RepoContext, tokenHash: string, now: Timestamp, ...kinds: ApiTokenKind[]) =>
    liveTokenHashesQuery(ctx, [tokenHash], now, kinds),
);

/** Bound on one `liveTokenHashes` read, well under every engine's parameter limit. */
export const MAX_LIVE_TOKEN_HASHES = 500;

/**
 * Records that a token authenticated at `now`, unless it already did after
 * `staleBefore`: the condition makes a racing second touch a no-op, and the
 * caller only calls when the row it read was stale, so a busy token costs one
 * write per interval, not one per request.
 */
export async function touchTokenUse(
  ctx: RepoContext,
  id: string,
  now: Timestamp,
  staleBefore: Timestamp,
): Promise<void> {
  await ctx.db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)]))
    .execute();
}

/**
 * Marks a live one-time token used and returns it; `undefined` when it is
 * unknown, of another kind, used or expired. One statement, so of two
 * concurrent redemptions exactly one gets the row.
 */
export async function redeemToken(
  ctx: RepoContext,
  tokenHash: string,
  kind: ApiTokenKind,
): Promise<TokenRecord | undefined> {
  const now = wallTimestamp(ctx.clock);
  return ctx.db
    .updateTable('api_tokens')
    .set({ used_at: now, updated_at: ctx.clock.timestamp() })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the token with this hash and kind; true when a row went. */
export async function deleteToken(
  ctx: RepoContext,
  tokenHash: string,
  kind: ApiTokenKind,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes the agent tokens of a session, so an ended session's agent reaches nothing. */
export async function deleteSessionTokens(ctx: RepoContext, sessionId: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where('kind', '=', 'agent')
    .where('task_session_id', '=', sessionId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the agent tokens of the sessions in `scope` (a replica's start, takeover or stop). */
export async function deleteAgentTokensIn(ctx: RepoContext, scope: SessionScope): Promise<number> {
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where('kind', '=', 'agent')
    .where(sessionInScope(ctx, scope, 'api_tokens.task_session_id'))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes one token by its row ID; true when it existed. */
export async function deleteTokenById(ctx: RepoContext, id: string): Promise<boolean> {
  const result = await ctx.db.deleteFrom('api_tokens').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes every token of `kind`, except the one whose hash is `keepHash`. */
export async function deleteTokensOfKind(
  ctx: RepoContext,
  kind: ApiTokenKind,
  keepHash?: string,
): Promise<number> {
  let query = ctx.db.deleteFrom('api_tokens').where('kind', '=', kind);
  if (keepHash !== undefined) query = query.where('token_hash', '!=', keepHash);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes tokens that can never authenticate again: used or expired ones. */
export async function deleteSpentTokens(ctx: RepoContext): Promise<number> {
  const now = wallTimestamp(ctx.clock);
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What makes a token spent, for `deleteSpentTokenBatch`: each reads its own index. */
export type SpentTokenRule = 'used' | 'expired';

/**
 * Deletes up to `limit` tokens that can never authenticate again: used ones
 * (sign-in links), or ones expired at `now` (sign-in links, browser
 * sessions); how many went. Several replicas may run it at once: on
 * PostgreSQL each skips the rows another is deleting, so none waits on
 * another's locks and no two deadlock; what one skipped, its own next
 * batch or the other deletes.
 */
export async function deleteSpentTokenBatch(
  ctx: RepoContext,
  rule: SpentTokenRule,
  now: Timestamp,
  limit: number,
): Promise<number> {
  const result = await deleteSpentTokenBatchQuery(ctx, rule, now, limit).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** `deleteSpentTokenBatch` as a query, for its plan: each rule reads its own index. */
export function deleteSpentTokenBatchQuery(
  ctx: RepoContext,
  rule: SpentTokenRule,
  now: Timestamp,
  limit: number,
) {
  return ctx.db.deleteFrom('api_tokens').where('id', 'in', (eb) =>
    eb
      .selectFrom('api_tokens')
      .select('id')
      .$if(rule === 'used', (query) => query.where('used_at', 'is not', null))
      .$if(rule === 'expired', (query) => query.where('expires_at', '<=', now))
      .limit(limit)
      .$if(ctx.dialect.driver === 'postgres', (query) => query.forUpdate().skipLocked()),
  );
}

/** A user's live personal API tokens (`PERSONAL_TOKEN_KINDS`), oldest first. */
export async function listPersonalTokens(ctx: RepoContext, userId: string): Promise<TokenRecord[]> {
  const now = wallTimestamp(ctx.clock);
  return ctx.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .where('kind', 'in', PERSONAL_TOKEN_KINDS)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** How many live (unused, unexpired) tokens of `kinds` the user holds. */
export async function countLiveTokens(
  ctx: RepoContext,
  userId: string,
  kinds: readonly ApiTokenKind[],
): Promise<number> {
  const now = wallTimestamp(ctx.clock);
  const row = await ctx.db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('live'))
    .where('user_id', '=', userId)
    .where('kind', 'in', kinds)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.live);
}

/**
 * Holds the user's row until the transaction ends, so that counting and then
 * adding a token is not raced by a second request on PostgreSQL (SQLite has a
 * single writer already). False when the user is gone.
 */
export async function lockUserRow(ctx: RepoContext, userId: string): Promise<boolean> {
  const result = await ctx.db
    .updateTable('users')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends every browser session of `userId` but the one whose hash is
 * `keepHash`; returns how many of them still signed in (an expired one goes
 * too, uncounted: it ended already).
 */
export async function deleteOtherBrowserTokens(
  ctx: RepoContext,
  userId: string,
  keepHash: string,
): Promise<number> {
  const now = wallTimestamp(ctx.clock);
  const deleted = await ctx.db
    .deleteFrom('api_tokens')
    .where('user_id', '=', userId)
    .where('kind', '=', 'browser')
    .where('token_hash', '!=', keepHash)
    .returning('expires_at')
    .execute();
  return deleted.filter((row) => row.expires_at === null || row.expires_at > now).length;
}

/**
 * The ID of the live browser session with this hash, held until the
 * transaction ends so that its deletion (which takes whatever refers to it
 * along) waits for what the caller writes next; `undefined` when it ended.
 */
export async function holdBrowserSession(
  ctx: RepoContext,
  tokenHash: string,
): Promise<string | undefined> {
  const now = wallTimestamp(ctx.clock);
  const row = await ctx.db
    .selectFrom('api_tokens')
    .select('id')
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'browser')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .$if(ctx.dialect.driver === 'postgres', (query) => query.forKeyShare())
    .executeTakeFirst();
  return row?.id;
}

/** Deletes one of the user's own personal tokens; false when no such token is theirs. */
export async function deletePersonalToken(
  ctx: RepoContext,
  userId: string,
  id: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('kind', 'in', PERSONAL_TOKEN_KINDS)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Deletes the sign-in links minted by one of `names`, and those from before
 * links carried a name; links of other origins are left to expire or be used.
 */
export async function deleteSignInLinksNamed(
  ctx: RepoContext,
  names: readonly string[],
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('api_tokens')
    .where('kind', '=', 'sign_in')
    .where((eb) =>
      names.length === 0
        ? eb('name', 'is', null)
        : eb.or([eb('name', 'is', null), eb('name', 'in', names)]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Tokens of a user, newest last; for tests and an eventual token list. */
export async function listUserTokens(ctx: RepoContext, userId: string): Promise<TokenRecord[]> {
  return ctx.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
