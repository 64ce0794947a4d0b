/**
 * Turns a restart interrupted, for start-up recovery. No agent process that
 * Clarion started outlives the server, so at start-up every such turn without
 * `completed_at` was cut off: its agent never reported the turn's end.
 *
 * Most of them need nothing but closing (a transcript of many sessions holds
 * many, and older databases never closed a turn whose agent died), so they
 * are closed in one statement; only the few that hold something a person
 * must see (a tool call still running, an answer, a carried answer, a
 * person's message its session was still running) are read one by one. The
 * open-turns index keeps both to open turns.
 */
import { constantText, ONE_ROW } from './compiled.js';
import { sql, type SqlBool } from 'kysely';
import { parseMetadata, type RepoContext } from './context.js';
import { reviseMessage, toMessageRecord, type MessageRecord } from './messages.js';
import {
  CLARIFICATION_TYPE,
  cutOffToolCallMetadata,
  ENDED_TOOL_CALL_STATUSES,
} from '../wire/index.js';
import type { TurnRecord } from './turns.js';
import { ALL_SESSIONS, sessionInScope, type SessionScope } from './leases.js';

export const OPEN_TURNS_INDEX = 'idx_turns_open';

/** The open-turns index definition (partial: completed turns never enter it). */
export const OPEN_TURNS_INDEX_DDL =
  `CREATE INDEX IF NOT EXISTS ${OPEN_TURNS_INDEX} ` +
  'ON task_session_turns (task_session_id) WHERE completed_at IS NULL';

const TOOL_CALL_TYPE = 'tool_call';
const USER_AUTHOR = 'user';

/**
 * Whether a tool-call row (optionally by alias) was never reported ended: its
 * status is missing or not one of ACP's ended ones.
 */
function toolCallOpen(ctx: RepoContext, alias?: string) {
  const status = ctx.dialect.metadataText('status', alias);
  return sql<SqlBool>`COALESCE(${status}, '') NOT IN (${sql.join(ENDED_TOOL_CALL_STATUSES.map(constantText))})`;
}

/** An open turn with the profile of its session's agent. */
export type InterruptedTurn = TurnRecord & { agent_profile: string; session_state: string };

/** The session states of an agent at work on a turn (`starting` has no turn yet). */
const AT_WORK_STATES = ['running', 'waiting_for_input'];

/**
 * Open turns that hold something recovery must look at: a tool call not
 * reported ended, an answered clarification row, a carried bundle (a
 * successor turn), or a person's message in a session still at work (the
 * turn the stop cut off). Oldest first within each session.
 */
export async function interruptedTurnsToExamine(
  ctx: RepoContext,
  scope: SessionScope = ALL_SESSIONS,
): Promise<InterruptedTurn[]> {
  const { dialect } = ctx;
  const toolCallRunning = sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_session_messages m
    WHERE m.turn_id = t.id AND m.type = ${TOOL_CALL_TYPE} AND ${toolCallOpen(ctx, 'm')}
  )`;
  const answered = sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_session_messages m
    WHERE m.turn_id = t.id AND m.type = ${CLARIFICATION_TYPE}
      AND ${dialect.metadataText('status', 'm')} = 'answered'
  )`;
  const carries = sql<SqlBool>`${dialect.metadataText('prompt_dispatch_clarification_pending_id', 't')} IS NOT NULL`;
  const messageAtWork = sql<SqlBool>`s.state IN (${sql.join(AT_WORK_STATES.map(constantText))})
    AND EXISTS (
      SELECT 1 FROM task_session_messages m
      WHERE m.turn_id = t.id AND m.author_type = ${constantText(USER_AUTHOR)}
    )`;
  const rows = await ctx.db
    .selectFrom('task_session_turns as t')
    .innerJoin('task_sessions as s', 's.id', 't.task_session_id')
    .selectAll('t')
    .select(['s.agent_profile', 's.state as session_state'])
    .where('t.completed_at', 'is', null)
    .where(sessionInScope(ctx, scope, 't.task_session_id'))
    .where((eb) => eb.or([carries, toolCallRunning, answered, messageAtWork]))
    .orderBy('t.task_session_id')
    .orderBy('t.started_at')
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  return rows.map((row) => ({ ...row, metadata: parseMetadata(row.metadata) }));
}

/**
 * Closes every other open turn of sessions whose agent is not `keepProfile`
 * (an external agent outlives a restart). Nothing on the wire shows a turn's
 * end, so no session revision moves.
 */
export async function closeOpenTurns(
  ctx: RepoContext,
  keepProfile: string,
  scope: SessionScope = ALL_SESSIONS,
): Promise<number> {
  const now = ctx.clock.timestamp();
  const result = await ctx.db
    .updateTable('task_session_turns')
    .set({ completed_at: now, updated_at: now })
    .where('completed_at', 'is', null)
    .where(sessionInScope(ctx, scope, 'task_session_turns.task_session_id'))
    .where(
      'task_session_id',
      'in',
      ctx.db.selectFrom('task_sessions').select('id').where('agent_profile', '<>', keepProfile),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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
    .where('type', 'in', types.map(constantText))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toMessageRecord);
}

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

/**
 * The tool calls of a turn that is ending which its agent never reported
 * ended: nothing of a closed turn runs, so each is marked cut off
 * (`cutOffToolCallMetadata`: failed to ACP, stopped to a person). Returns the
 * revised rows, for the session write to publish. Runs at every turn's end,
 * and most turns end with every call reported, so the read selects only the
 * open ones.
 */
export async function endOpenToolCalls(ctx: RepoContext, turnId: string): Promise<MessageRecord[]> {
  const open = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('turn_id', '=', turnId)
    .where('type', '=', constantText(TOOL_CALL_TYPE))
    .where(toolCallOpen(ctx))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const revised: MessageRecord[] = [];
  for (const call of open.map(toMessageRecord)) {
    const closed = await reviseMessage(ctx, call.id, {
      content: call.content,
      metadata: cutOffToolCallMetadata(call.metadata),
    });
    if (closed) revised.push(closed);
  }
  return revised;
}

/** Whether a person's message is in `turnId`: the prompt admission sent to start it. */
export async function turnHasPersonMessage(ctx: RepoContext, turnId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('turn_id', '=', turnId)
    .where('author_type', '=', constantText(USER_AUTHOR))
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row !== undefined;
}
