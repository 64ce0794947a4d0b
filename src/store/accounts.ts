/**
 * Users, workspaces and memberships: the rows that task access hangs on
 * (`access.ts` reads them). Lists are ordered by creation, then ID, so every
 * caller sees the same order on both drivers.
 */
import { ONE_ROW } from './compiled.js';
import type { RepoContext } from './context.js';
import type { UsersTable, WorkspaceMembersTable, WorkspacesTable } from './tables.js';

export type UserRecord = UsersTable;
export type WorkspaceRecord = WorkspacesTable;
export type MemberRecord = WorkspaceMembersTable;
export type MemberRole = 'member' | 'owner';

export async function createUser(
  ctx: RepoContext,
  input: { name: string; isAdmin?: boolean },
): Promise<UserRecord> {
  const now = ctx.clock.timestamp();
  const row: UserRecord = {
    id: ctx.ids.next(),
    name: input.name,
    is_admin: input.isAdmin === true ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('users').values(row).execute();
  return row;
}

export async function createWorkspace(
  ctx: RepoContext,
  input: { name: string },
): Promise<WorkspaceRecord> {
  const now = ctx.clock.timestamp();
  const row: WorkspaceRecord = {
    id: ctx.ids.next(),
    name: input.name,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('workspaces').values(row).execute();
  return row;
}

export async function getWorkspace(
  ctx: RepoContext,
  id: string,
): Promise<WorkspaceRecord | undefined> {
  return ctx.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Renames a workspace; the row as it is now, or undefined when there is none. */
export async function renameWorkspaceRow(
  ctx: RepoContext,
  id: string,
  name: string,
): Promise<WorkspaceRecord | undefined> {
  return ctx.db
    .updateTable('workspaces')
    .set({ name, updated_at: ctx.clock.timestamp() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** A workspace in an admin's list of all: whether the caller belongs to it. */
export type ListedWorkspace = WorkspaceRecord & { member: boolean };

/** Every workspace, each saying whether `userId` belongs to it (an admin's view). */
export async function listAllWorkspaces(
  ctx: RepoContext,
  userId: string,
): Promise<ListedWorkspace[]> {
  const rows = await ctx.db
    .selectFrom('workspaces as w')
    .leftJoin('workspace_members as wm', (join) =>
      join.onRef('wm.workspace_id', '=', 'w.id').on('wm.user_id', '=', userId),
    )
    .selectAll('w')
    .select('wm.user_id as member_id')
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
  return rows.map(({ member_id, ...row }) => ({ ...row, member: member_id !== null }));
}

export async function addWorkspaceMember(
  ctx: RepoContext,
  input: { workspaceId: string; userId: string; role: string },
): Promise<void> {
  const now = ctx.clock.timestamp();
  await ctx.db
    .insertInto('workspace_members')
    .values({
      workspace_id: input.workspaceId,
      user_id: input.userId,
      role: input.role,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'user_id']).doNothing())
    .execute();
}

export async function getUser(ctx: RepoContext, id: string): Promise<UserRecord | undefined> {
  return ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Deletes a user; true when it existed. The schema's cascades take its
 * tokens of every kind (so its credentials stop working in this statement)
 * and its memberships; its tasks stay, without a creator.
 */
export async function deleteUserRow(ctx: RepoContext, id: string): Promise<boolean> {
  const result = await ctx.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * The users among `ids` that still exist, their rows locked on PostgreSQL
 * until the transaction ends (`exclusive`: for update, else for share). Taken
 * in ID order, so two transactions that lock the same users wait for each
 * other rather than deadlock; SQLite runs one write at a time.
 */
export async function lockUsers(
  ctx: RepoContext,
  ids: readonly string[],
  exclusive: boolean,
): Promise<UserRecord[]> {
  return ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .$if(ctx.dialect.driver === 'postgres', (query) =>
      exclusive ? query.forUpdate() : query.forShare(),
    )
    .execute();
}

export async function listUsers(ctx: RepoContext): Promise<UserRecord[]> {
  return ctx.db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function hasAnyUser(ctx: RepoContext): Promise<boolean> {
  const row = await ctx.db.selectFrom('users').select('id').limit(ONE_ROW).executeTakeFirst();
  return row !== undefined;
}

/** The oldest admin: the one `CLARION_ADMIN_TOKEN` belongs to. */
export async function firstAdmin(ctx: RepoContext): Promise<UserRecord | undefined> {
  return ctx.db
    .selectFrom('users')
    .selectAll()
    .where('is_admin', '=', 1)
    .orderBy('created_at')
    .orderBy('id')
    .limit(ONE_ROW)
    .executeTakeFirst();
}

/** Workspaces the user belongs to. */
export async function listMemberWorkspaces(
  ctx: RepoContext,
  userId: string,
): Promise<WorkspaceRecord[]> {
  return ctx.db
    .selectFrom('workspaces as w')
    .innerJoin('workspace_members as wm', 'wm.workspace_id', 'w.id')
    .selectAll('w')
    .where('wm.user_id', '=', userId)
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
}

export async function getWorkspaceMember(
  ctx: RepoContext,
  workspaceId: string,
  userId: string,
): Promise<MemberRecord | undefined> {
  return ctx.db
    .selectFrom('workspace_members')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** A membership with its user's name, for member lists. */
export interface MemberListing extends MemberRecord {
  readonly user_name: string;
}

export async function listWorkspaceMembers(
  ctx: RepoContext,
  workspaceId: string,
): Promise<MemberListing[]> {
  return ctx.db
    .selectFrom('workspace_members as wm')
    .innerJoin('users as u', 'u.id', 'wm.user_id')
    .selectAll('wm')
    .select('u.name as user_name')
    .where('wm.workspace_id', '=', workspaceId)
    .orderBy('wm.created_at')
    .orderBy('wm.user_id')
    .execute();
}

/**
 * Adds a member, or leaves an existing one as it is unless `role` is given
 * and differs, in which case the role changes. Retrying the same call
 * changes nothing.
 */
export async function ensureWorkspaceMember(
  ctx: RepoContext,
  input: { workspaceId: string; userId: string; role?: MemberRole },
): Promise<{ member: MemberRecord; created: boolean }> {
  const now = ctx.clock.timestamp();
  const inserted = await ctx.db
    .insertInto('workspace_members')
    .values({
      workspace_id: input.workspaceId,
      user_id: input.userId,
      role: input.role ?? 'member',
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'user_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { member: inserted, created: true };
  const existing = await getWorkspaceMember(ctx, input.workspaceId, input.userId);
  if (!existing) throw new Error('membership vanished between insert and read');
  if (input.role === undefined || input.role === existing.role) {
    return { member: existing, created: false };
  }
  const updated = await ctx.db
    .updateTable('workspace_members')
    .set({ role: input.role, updated_at: ctx.clock.timestamp() })
    .where('workspace_id', '=', input.workspaceId)
    .where('user_id', '=', input.userId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { member: updated, created: false };
}

/**
 * The workspaces `userId` owns with no other owner (of `workspaceId` only,
 * when given). The owner rows read are locked on PostgreSQL until the
 * transaction ends, so two removals at once cannot each count the other
 * and leave a workspace with no owner; SQLite runs one write at a time.
 */
export async function soleOwnedWorkspaces(
  ctx: RepoContext,
  userId: string,
  workspaceId?: string,
): Promise<WorkspaceRecord[]> {
  const owners = await ctx.db
    .selectFrom('workspace_members')
    .select(['workspace_id', 'user_id'])
    .where('role', '=', 'owner')
    .where('workspace_id', 'in', (owned) =>
      owned
        .selectFrom('workspace_members')
        .select('workspace_id')
        .where('user_id', '=', userId)
        .where('role', '=', 'owner')
        .$if(workspaceId !== undefined, (query) =>
          query.where('workspace_id', '=', workspaceId ?? ''),
        ),
    )
    .$if(ctx.dialect.driver === 'postgres', (query) => query.forUpdate())
    .execute();
  const others = new Set(
    owners.filter((row) => row.user_id !== userId).map((row) => row.workspace_id),
  );
  const sole = [...new Set(owners.map((row) => row.workspace_id))].filter((id) => !others.has(id));
  if (sole.length === 0) return [];
  return ctx.db
    .selectFrom('workspaces')
    .selectAll()
    .where('id', 'in', sole)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** True when a membership was removed. */
export async function removeWorkspaceMember(
  ctx: RepoContext,
  workspaceId: string,
  userId: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('workspace_members')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
