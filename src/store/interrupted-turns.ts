/**
 * Reads of turns a restart interrupted, for start-up recovery. No agent
 * process outlives the server, so at start-up every turn without
 * `completed_at` was cut off: its agent never reported the turn's end. The
 * open-turns index keeps this scan to those turns, not the whole history.
 */
import { parseMetadata, type RepoContext } from './context.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import type { TurnRecord } from './turns.js';

export const OPEN_TURNS_INDEX = 'idx_turns_open';

/** An open turn with the profile of its session's agent. */
export type InterruptedTurn = TurnRecord & { agent_profile: string };

/** Every turn with no `completed_at`, oldest first within each session. */
export async function openTurns(ctx: RepoContext): Promise<InterruptedTurn[]> {
  const rows = await ctx.db
    .selectFrom('task_session_turns as t')
    .innerJoin('task_sessions as s', 's.id', 't.task_session_id')
    .selectAll('t')
    .select('s.agent_profile')
    .where('t.completed_at', 'is', null)
    .orderBy('t.task_session_id')
    .orderBy('t.started_at')
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  return rows.map((row) => ({ ...row, metadata: parseMetadata(row.metadata) }));
}

/** A turn's rows of the given types, in transcript order (through `idx_messages_turn`). */
export async function turnRowsOfTypes(
  ctx: RepoContext,
  turnId: string,
  types: readonly string[],
): Promise<MessageRecord[]> {
  if (types.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('turn_id', '=', turnId)
    .where('type', 'in', types)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toMessageRecord);
}

/** The open-turns index definition (partial: completed turns never enter it). */
export const OPEN_TURNS_INDEX_DDL =
  `CREATE INDEX IF NOT EXISTS ${OPEN_TURNS_INDEX} ` +
  'ON task_session_turns (task_session_id) WHERE completed_at IS NULL';

/** Whether `turnId` has no `completed_at` (a re-check inside a session write). */
export async function turnIsOpen(ctx: RepoContext, turnId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_turns')
    .select('id')
    .where('id', '=', turnId)
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
