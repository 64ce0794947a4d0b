/**
 * One-time sign-in links beyond the one printed at start-up: for the caller's
 * phone (Settings), for a user an admin names, for a new user, and for an
 * admin who lost theirs (`clarion sign-in-link`, with or without a running
 * server). Minting never revokes another link: two devices may each hold
 * one. Only start-up revokes, and only the unused links of earlier starts,
 * which were printed to a terminal or a log and have no other holder.
 *
 * A link is `<origin>/auth/sign-in?token=<secret>`, the origin being
 * `CLARION_PUBLIC_ORIGIN` when set, else the server's own URL; the caller
 * passes it in, since only the composition root knows where it listens.
 */
import { SIGN_IN_LINK_TTL_MS, SIGN_IN_LINKS_PER_USER } from '../tunables.js';
import {
  countLiveTokens,
  deleteSignInLinksNamed,
  firstAdmin,
  getUser,
  listUsers,
  lockUserRow,
  type RepoContext,
  type Store,
  type UserRecord,
} from '../store/index.js';
import { failure, type Failure, type SignInLinkReply } from '../wire/index.js';
import type { Principal } from './principal.js';
import { adminStands, callerGone } from './standing.js';
import { issueToken } from './tokens.js';

export const SIGN_IN_PATH = '/auth/sign-in';

/** Who minted a link, kept as its row's `name`: start-up links alone are revoked by a restart. */
export const SIGN_IN_ORIGINS = {
  startUp: 'start-up',
  api: 'api',
  newUser: 'new-user',
  cli: 'cli',
} as const;
export type SignInOrigin = (typeof SIGN_IN_ORIGINS)[keyof typeof SIGN_IN_ORIGINS];

export function signInUrl(origin: string, secret: string): string {
  return `${origin}${SIGN_IN_PATH}?token=${secret}`;
}

/** A fresh link for `userId`; lives `SIGN_IN_LINK_TTL_MS` unless `ttlMs` says otherwise. */
export async function mintSignInLink(
  ctx: RepoContext,
  input: { userId: string; origin: string; mintedBy: SignInOrigin; ttlMs?: number },
): Promise<SignInLinkReply> {
  const issued = await issueToken(ctx, {
    kind: 'sign_in',
    userId: input.userId,
    name: input.mintedBy,
    ttlMs: input.ttlMs ?? SIGN_IN_LINK_TTL_MS,
  });
  return {
    url: signInUrl(input.origin, issued.secret),
    expires_at: issued.record.expires_at ?? '',
  };
}

/** Start-up's rule: the unused links earlier starts printed end; links minted since stay. */
export function revokeStartUpLinks(ctx: RepoContext): Promise<number> {
  return deleteSignInLinksNamed(ctx, [SIGN_IN_ORIGINS.startUp]);
}

export type SignInLinkResult =
  | ({ ok: true } & SignInLinkReply)
  | Failure<'forbidden' | 'not_found' | 'quota_exceeded' | 'unauthorized'>;

/**
 * `POST /api/v1/auth/sign-in-links`: a link for the caller, or, for an admin,
 * for the user they name. A person who is not an admin naming someone else is
 * refused before the name is looked up, so the answer says nothing of who exists.
 * At most `SIGN_IN_LINKS_PER_USER` live links per user, so a loop cannot fill
 * the table.
 */
export async function signInLinkFor(
  store: Store,
  caller: Principal,
  input: { userId?: string | undefined; origin: string },
): Promise<SignInLinkResult> {
  if (caller.kind !== 'user') return failure('forbidden', 'an agent cannot mint a sign-in link');
  const userId = input.userId ?? caller.userId;
  if (userId !== caller.userId && !caller.isAdmin) {
    return failure('forbidden', 'only an admin may mint a sign-in link for another user');
  }
  return store.transaction(async (tx): Promise<SignInLinkResult> => {
    if (userId !== caller.userId) {
      // A link to sign in as someone else: only while its admin stands, or one deleted meanwhile
      // could sign in as the admin who deleted them. Locks the user's row too, as below.
      const users = await adminStands(tx, caller, [userId], true);
      if (!users) return callerGone();
      if (!users.some((user) => user.id === userId)) return failure('not_found', 'unknown user');
    } else if (!(await lockUserRow(tx, userId))) {
      // Also the existence check; it keeps a concurrent mint from slipping past the count.
      return failure('not_found', 'unknown user');
    }
    if ((await countLiveTokens(tx, userId, ['sign_in'])) >= SIGN_IN_LINKS_PER_USER) {
      return failure(
        'quota_exceeded',
        `${SIGN_IN_LINKS_PER_USER} unused sign-in links are already out; use one or wait until one expires`,
      );
    }
    const link = await mintSignInLink(tx, {
      userId,
      origin: input.origin,
      mintedBy: SIGN_IN_ORIGINS.api,
    });
    return { ok: true, ...link };
  });
}

export type CliLinkResult =
  { ok: true; user: UserRecord; link: SignInLinkReply } | { ok: false; message: string };

/**
 * `clarion sign-in-link [--user NAME]`: a link for the named user (by name or
 * ID), or for the first admin. It writes through the store like any other
 * mint, so a running server honours it at once and a stopped one at its next
 * start (start-up revokes only start-up links).
 */
export async function cliSignInLink(
  store: Store,
  input: { user?: string | undefined; origin: string },
): Promise<CliLinkResult> {
  return store.transaction(async (tx): Promise<CliLinkResult> => {
    const found = await findUser(tx, input.user);
    if (!found.ok) return found;
    const link = await mintSignInLink(tx, {
      userId: found.user.id,
      origin: input.origin,
      mintedBy: SIGN_IN_ORIGINS.cli,
    });
    return { ok: true, user: found.user, link };
  });
}

async function findUser(
  ctx: RepoContext,
  nameOrId: string | undefined,
): Promise<{ ok: true; user: UserRecord } | { ok: false; message: string }> {
  if (nameOrId === undefined) {
    const admin = await firstAdmin(ctx);
    return admin
      ? { ok: true, user: admin }
      : { ok: false, message: 'there is no admin yet: run `clarion serve` once to create one' };
  }
  const byId = await getUser(ctx, nameOrId);
  if (byId) return { ok: true, user: byId };
  const named = (await listUsers(ctx)).filter((user) => user.name === nameOrId);
  if (named.length === 1 && named[0]) return { ok: true, user: named[0] };
  if (named.length === 0) return { ok: false, message: `no user is named "${nameOrId}"` };
  const ids = named.map((user) => user.id).join(', ');
  return {
    ok: false,
    message: `${named.length} users are named "${nameOrId}"; pass one of their IDs instead: ${ids}`,
  };
}
