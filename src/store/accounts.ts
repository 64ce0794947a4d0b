/** Users and workspaces: the rows that task access hangs on. */
import type { RepoContext } from './context.js';
import type { UsersTable, WorkspacesTable } from './tables.js';

export type UserRecord = UsersTable;
export type WorkspaceRecord = WorkspacesTable;

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
