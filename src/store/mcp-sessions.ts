/**
 * MCP sessions any replica can serve (issue 16): the replica that answered a
 * session's `initialize` keeps what it learned here, and a replica that gets
 * a later request of that session (no sticky routing, an idle close, a
 * restart) opens it again from this row. A clean close deletes it; a session
 * its client never closes goes once unused long enough.
 */
import { sql } from 'kysely';
import type { RepoContext } from './context.js';
import type { McpSessionsTable } from './tables.js';

export type McpSessionRecord = McpSessionsTable;

export async function recordMcpSession(ctx: RepoContext, record: McpSessionRecord): Promise<void> {
  await ctx.db
    .insertInto('mcp_sessions')
    .values(record)
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

/** The session, when `owner` opened it. */
export function findMcpSession(
  ctx: RepoContext,
  id: string,
  owner: string,
): Promise<McpSessionRecord | undefined> {
  return ctx.db
    .selectFrom('mcp_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('owner', '=', owner)
    .executeTakeFirst();
}

export async function forgetMcpSession(ctx: RepoContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('mcp_sessions').where('id', '=', id).execute();
}

/** Records that `ids` were used at `at`; a later use another replica recorded stays. */
export async function recordMcpSessionsUse(
  ctx: RepoContext,
  ids: readonly string[],
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await ctx.db
    .updateTable('mcp_sessions')
    .set({ last_used_at: at })
    .where('id', 'in', ids)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
}

/** Deletes sessions last used before `before` (clients that never closed theirs). */
export async function pruneMcpSessions(ctx: RepoContext, before: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom('mcp_sessions')
    .where(sql<string>`coalesce(last_used_at, created_at)`, '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
