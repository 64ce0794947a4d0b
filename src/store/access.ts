/**
 * Visibility: which tasks and sessions a principal may see. Every read that
 * could reveal a task goes through here, so "unknown" and "not yours" can be
 * answered the same way.
 */
import type { Principal } from '../auth/index.js';
import { compiledStatement } from './compiled.js';
import type { RepoContext } from './context.js';

/** Whether `principal` may see the session; false for an unknown session too. */
export async function canSeeSession(
  ctx: RepoContext,
  principal: Principal,
  sessionId: string,
): Promise<boolean> {
  if (principal.kind === 'agent') return principal.sessionId === sessionId;
  const rows = await sessionMemberStatement(ctx, '', sessionId, principal.userId);
  return rows.length > 0;
}

const sessionMemberStatement = compiledStatement(
  'session member',
  (ctx: RepoContext, sessionId: string, userId: string) =>
    ctx.db
      .selectFrom('task_sessions as s')
      .innerJoin('tasks as t', 't.id', 's.task_id')
      .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
      .select('s.id')
      .where('s.id', '=', sessionId)
      .where('wm.user_id', '=', userId),
);

/** Whether `principal` may see the task; agents see only their own session's task. */
export async function canSeeTask(
  ctx: RepoContext,
  principal: Principal,
  taskId: string,
): Promise<boolean> {
  if (principal.kind === 'agent') {
    const row = await ctx.db
      .selectFrom('task_sessions')
      .select('id')
      .where('id', '=', principal.sessionId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row !== undefined;
  }
  const row = await ctx.db
    .selectFrom('tasks as t')
    .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
    .select('t.id')
    .where('t.id', '=', taskId)
    .where('wm.user_id', '=', principal.userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** IDs of the workspaces a user belongs to. */
export async function memberWorkspaceIds(ctx: RepoContext, userId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('workspace_members')
    .select('workspace_id')
    .where('user_id', '=', userId)
    .execute();
  return rows.map((row) => row.workspace_id);
}
