/**
 * Accounts' rules: who a principal is, users, workspaces and their
 * members. Creating users and workspaces and changing membership is for
 * admins; the route checks who may call, this decides what the call does,
 * and whether its admin still stands when it does it (`adminStands`). The
 * changes are reached through `AccountService` (`account-service.ts`), which
 * announces each once it committed; only the reads are offered bare.
 * A workspace the caller may not see is `not_found`, the same as one that
 * does not exist. Membership is what grants task access (`store/access.ts`).
 */
import {
  createUser,
  createWorkspace,
  deleteUserRow,
  liveSessionsCreatedBy,
  ensureWorkspaceMember,
  getUser,
  getWorkspace,
  getWorkspaceMember,
  listAllWorkspaces,
  listMemberWorkspaces,
  listUsers,
  listWorkspaceMembers,
  removeWorkspaceMember,
  renameWorkspaceRow,
  soleOwnedWorkspaces,
  type ListedWorkspace,
  type MemberRecord,
  type RepoContext,
  type Store,
  type UserRecord,
  type WorkspaceRecord,
} from '../store/index.js';
import {
  failure,
  type Failure,
  type MemberView,
  type UserView,
  type WorkspaceView,
} from '../wire/index.js';
import type { Principal } from './principal.js';
import { adminStands, callerGone } from './standing.js';
import { mintSignInLink, SIGN_IN_ORIGINS } from './sign-in-links.js';
import { issueToken, SIGN_IN_TOKEN_TTL_MS } from './tokens.js';

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

export function userView(user: UserRecord): UserView {
  return {
    id: user.id,
    name: user.name,
    is_admin: user.is_admin === 1,
    created_at: user.created_at,
  };
}

export function workspaceView(workspace: WorkspaceRecord): WorkspaceView {
  return { id: workspace.id, name: workspace.name, created_at: workspace.created_at };
}

export function memberView(member: MemberRecord): MemberView {
  return {
    workspace_id: member.workspace_id,
    user_id: member.user_id,
    role: member.role === 'owner' ? 'owner' : 'member',
    created_at: member.created_at,
  };
}

/** The principal's own user record; `undefined` once the user is gone. */
export function whoIs(store: Store, principal: Principal): Promise<UserRecord | undefined> {
  return getUser(store, principal.userId);
}

/** How a new user's first bearer token is listed among their tokens. */
export const FIRST_TOKEN_NAME = 'First token';

/**
 * A new user, its first bearer token and a one-time sign-in link for the web
 * app, in one transaction. The link lives as long as a start-up link: the
 * admin still has to hand it over.
 */
export function createUserWithToken(store: Store, input: NewUserInput): Promise<NewUserWithToken> {
  return store.transaction((tx) => createUserIn(tx, input));
}

export interface NewUserInput {
  readonly name: string;
  readonly isAdmin?: boolean | undefined;
  readonly origin: string;
}

export interface NewUserWithToken {
  readonly user: UserRecord;
  readonly token: string;
  readonly signInUrl: string;
  readonly signInExpiresAt: string;
}

/** `POST /api/v1/users`: `createUserWithToken`, for an admin who still stands. */
export function inviteUser(
  store: Store,
  caller: UserPrincipal,
  input: NewUserInput,
): Promise<({ ok: true } & NewUserWithToken) | Failure<'unauthorized'>> {
  return store.transaction(async (tx) => {
    if (!(await adminStands(tx, caller, [], false))) return callerGone();
    return { ok: true as const, ...(await createUserIn(tx, input)) };
  });
}

async function createUserIn(tx: RepoContext, input: NewUserInput): Promise<NewUserWithToken> {
  const user = await createUser(tx, { name: input.name, isAdmin: input.isAdmin });
  const token = await issueToken(tx, { kind: 'user', userId: user.id, name: FIRST_TOKEN_NAME });
  const link = await mintSignInLink(tx, {
    userId: user.id,
    origin: input.origin,
    mintedBy: SIGN_IN_ORIGINS.newUser,
    ttlMs: SIGN_IN_TOKEN_TTL_MS,
  });
  return { user, token: token.secret, signInUrl: link.url, signInExpiresAt: link.expires_at };
}

/**
 * Deletes a user and with it every credential it holds: bearer and preset
 * tokens, browser sessions, unused sign-in links and the agent tokens minted
 * on its behalf, all rows the database deletes with the user. An admin may
 * not delete themselves: the last admin would lock everyone out until a
 * restart.
 */
export async function deleteUser(
  store: Store,
  caller: UserPrincipal,
  userId: string,
): Promise<DeletedUser | Failure<'not_found' | 'conflict' | 'unauthorized'>> {
  if (userId === caller.userId) return failure('conflict', 'you cannot delete your own account');
  return store.transaction(async (tx) => {
    // Two admins deleting each other at once: the second finds itself gone, so one admin stays.
    if (!(await adminStands(tx, caller, [userId], true))) return callerGone();
    // Its memberships go with it: a workspace it alone owns would be left with no owner.
    const orphaned = await soleOwnedWorkspaces(tx, userId);
    if (orphaned.length > 0) return ownerNeeded(orphaned);
    // Read first: the deletion leaves its tasks without a creator, and its workspaces without it.
    const actedFor = await liveSessionsCreatedBy(tx, userId);
    const coMembers = new Set<string>();
    for (const workspace of await listMemberWorkspaces(tx, userId)) {
      for (const member of await listWorkspaceMembers(tx, workspace.id)) {
        if (member.user_id !== userId) coMembers.add(member.user_id);
      }
    }
    return (await deleteUserRow(tx, userId))
      ? { ok: true as const, actedFor, coMembers: [...coMembers] }
      : failure('not_found', 'unknown user');
  });
}

export interface DeletedUser {
  readonly ok: true;
  /**
   * The live sessions whose agents acted for the deleted person (the tasks
   * they created): with their credentials gone, no agent may run for these
   * again, and whoever owns sessions ends them (`turns/`' `endSessionsActedFor`).
   */
  readonly actedFor: readonly string[];
  /** Who shared a workspace with them: their People pages listed them. */
  readonly coMembers: readonly string[];
}

/**
 * A workspace keeps at least one owner: without one it may have no member
 * left, and then nobody sees it or its tasks. The refusal names the
 * workspaces, so the admin knows whom to promote first.
 */
function ownerNeeded(workspaces: readonly WorkspaceRecord[]): Failure<'conflict'> {
  const names = workspaces.map((workspace) => `"${workspace.name}"`).join(', ');
  return failure(
    'conflict',
    `${names} would be left without an owner: make another member an owner first`,
  );
}

export function allUsers(store: Store): Promise<UserRecord[]> {
  return listUsers(store);
}

/** A new workspace, owned by the admin who created it. */
export function createOwnedWorkspace(
  store: Store,
  owner: UserPrincipal,
  name: string,
): Promise<{ ok: true; workspace: WorkspaceRecord } | Failure<'unauthorized'>> {
  return store.transaction(async (tx) => {
    if (!(await adminStands(tx, owner, [], false))) return callerGone();
    const workspace = await createWorkspace(tx, { name });
    await ensureWorkspaceMember(tx, {
      workspaceId: workspace.id,
      userId: owner.userId,
      role: 'owner',
    });
    return { ok: true as const, workspace };
  });
}

export function workspacesOf(store: Store, principal: UserPrincipal): Promise<WorkspaceRecord[]> {
  return listMemberWorkspaces(store, principal.userId);
}

/**
 * Every workspace, each saying whether the caller belongs to it: an admin
 * manages workspaces they are not in, so the People page lists them all.
 */
export async function everyWorkspaceFor(
  store: Store,
  principal: UserPrincipal,
): Promise<{ ok: true; workspaces: ListedWorkspace[] } | Failure<'forbidden'>> {
  if (!principal.isAdmin) return failure('forbidden', 'only an admin may list every workspace');
  return { ok: true, workspaces: await listAllWorkspaces(store, principal.userId) };
}

/**
 * Renames a workspace, for an admin or one of its owners. A plain member is
 * refused; someone outside it finds it `not_found`, as everywhere else.
 */
export function renameWorkspace(
  store: Store,
  principal: UserPrincipal,
  workspaceId: string,
  name: string,
): Promise<
  { ok: true; workspace: WorkspaceRecord } | Failure<'not_found' | 'forbidden' | 'unauthorized'>
> {
  return store.transaction(async (tx) => {
    if (principal.isAdmin && !(await adminStands(tx, principal, [], false))) return callerGone();
    const unknown = failure('not_found', 'unknown workspace');
    if (!(await getWorkspace(tx, workspaceId))) return unknown;
    if (!principal.isAdmin) {
      const membership = await getWorkspaceMember(tx, workspaceId, principal.userId);
      if (!membership) return unknown;
      if (membership.role !== 'owner') {
        return failure('forbidden', 'only an admin or an owner of this workspace may rename it');
      }
    }
    const workspace = await renameWorkspaceRow(tx, workspaceId, name);
    return workspace ? { ok: true as const, workspace } : unknown;
  });
}

export type MembershipResult =
  | { ok: true; member: MemberRecord; created: boolean }
  | Failure<'not_found' | 'conflict' | 'unauthorized'>;

/** Adds a member, or changes its role; a repeated call finds it in place (`created: false`). */
export function addMember(
  store: Store,
  caller: UserPrincipal,
  input: { workspaceId: string; userId: string; role?: 'member' | 'owner' | undefined },
): Promise<MembershipResult> {
  return store.transaction(async (tx): Promise<MembershipResult> => {
    // The member's row too, in the same order a deletion of them takes it.
    const users = await adminStands(tx, caller, [input.userId], false);
    if (!users) return callerGone();
    if (!(await getWorkspace(tx, input.workspaceId))) {
      return failure('not_found', 'unknown workspace');
    }
    if (!users.some((user) => user.id === input.userId)) {
      return failure('not_found', 'unknown user');
    }
    if (input.role === 'member') {
      const orphaned = await soleOwnedWorkspaces(tx, input.userId, input.workspaceId);
      if (orphaned.length > 0) return ownerNeeded(orphaned);
    }
    const result = await ensureWorkspaceMember(tx, input);
    return { ok: true, ...result };
  });
}

export type MemberListResult =
  { ok: true; members: (MemberRecord & { user_name: string })[] } | Failure<'not_found'>;

/** The members of a workspace the caller belongs to (admins see every workspace). */
export async function membersOf(
  store: Store,
  principal: UserPrincipal,
  workspaceId: string,
): Promise<MemberListResult> {
  const visible =
    (await getWorkspace(store, workspaceId)) !== undefined &&
    (principal.isAdmin ||
      (await getWorkspaceMember(store, workspaceId, principal.userId)) !== undefined);
  if (!visible) return failure('not_found', 'unknown workspace');
  return { ok: true, members: await listWorkspaceMembers(store, workspaceId) };
}

export function removeMember(
  store: Store,
  caller: UserPrincipal,
  workspaceId: string,
  userId: string,
): Promise<RemovedMember | Failure<'not_found' | 'conflict' | 'unauthorized'>> {
  return store.transaction(async (tx) => {
    if (!(await adminStands(tx, caller, [], false))) return callerGone();
    const orphaned = await soleOwnedWorkspaces(tx, userId, workspaceId);
    if (orphaned.length > 0) return ownerNeeded(orphaned);
    if (!(await removeWorkspaceMember(tx, workspaceId, userId))) {
      return failure('not_found', 'unknown membership');
    }
    return { ok: true as const, actedFor: await liveSessionsCreatedBy(tx, userId, workspaceId) };
  });
}

export interface RemovedMember {
  readonly ok: true;
  /**
   * The live sessions of the tasks they created in the workspace: their
   * agents act for someone who may no longer see them, so whoever owns
   * sessions ends them (`turns/`' `endSessionsActedFor`).
   */
  readonly actedFor: readonly string[];
}
