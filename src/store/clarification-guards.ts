/**
 * The guards every statement that decides a bundle's fate carries (DESIGN §5),
 * written once: a clarification row still pending, in its session's current
 * turn, in a session that has not ended.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { RepoContext } from './context.js';
import type { MessageRecord } from './messages.js';
import { TERMINAL_SESSION_STATES } from './tables.js';
import { currentTurnIdOf } from './turns.js';

const ROW_SESSION = sql.ref<string>('task_session_messages.task_session_id');

export function isPending(ctx: RepoContext): Expression<SqlBool> {
  return sql<SqlBool>`COALESCE(${ctx.dialect.metadataText('status')}, 'pending') = 'pending'`;
}

/** A messages row in its session's current turn (the row's own session, correlated). */
export function inCurrentTurn(ctx: RepoContext): Expression<SqlBool> {
  return sql<SqlBool>`task_session_messages.turn_id = (${currentTurnIdOf(ctx, ROW_SESSION)})`;
}

/**
 * `s.state` is not a terminal state, spelled as comparisons: SQLite builds a
 * temporary index for a `NOT IN` list of more than two constants at every
 * execution, which cost more than the rest of a short statement.
 */
const SESSION_NOT_ENDED = sql.raw<SqlBool>(
  TERMINAL_SESSION_STATES.map((state) => `s.state <> '${state}'`).join(' AND '),
);

/** A messages row whose session has not ended (correlated). */
export function sessionLive(): Expression<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_sessions s WHERE s.id = ${ROW_SESSION} AND ${SESSION_NOT_ENDED}
  )`;
}

/** The session, given by ID, has not ended: an uncorrelated probe, run once per statement. */
export function boundSessionLive(sessionId: string): Expression<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_sessions s WHERE s.id = ${sessionId} AND ${SESSION_NOT_ENDED}
  )`;
}

/**
 * The session, given by ID, has not ended, and the person given by ID still
 * belongs to its workspace: `boundSessionLive` with the membership a
 * decision stands on, read in the statement that decides (three primary-key
 * probes, once per statement). An admin may remove the person after their
 * identity was read and before their decision is written.
 */
export function boundSessionLiveFor(sessionId: string, userId: string): Expression<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_sessions s
    INNER JOIN tasks t ON t.id = s.task_id
    INNER JOIN workspace_members wm ON wm.workspace_id = t.workspace_id AND wm.user_id = ${userId}
    WHERE s.id = ${sessionId} AND ${SESSION_NOT_ENDED}
  )`;
}

/** Rows in the order they were written. */
export function byCreation(a: MessageRecord, b: MessageRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
