/**
 * Turns and the current-turn rule.
 *
 * The current turn of a session is its newest authoritative turn, ordered by
 * `started_at`, `created_at`, `id` descending. A turn is authoritative unless it
 * is a pure reservation: a successor turn whose prompt is reserved
 * (`prompt_dispatch_pending`) but not yet attempted and that no message refers
 * to. Deleting messages never moves the current turn back, since the turn row
 * stays.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { compiledStatement, ONE_ROW } from './compiled.js';
import { parseMetadata, type Metadata, type RepoContext } from './context.js';
import { jsonValue } from './dialect.js';
import { ALL_SESSIONS, sessionInScope, type SessionScope } from './leases.js';
import type { TaskSessionTurnsTable } from './tables.js';
import { DECISION_SURFACES, type DecisionSurface, type Responder } from '../wire/index.js';

export type TurnRecord = Omit<TaskSessionTurnsTable, 'metadata'> & { metadata: Metadata };

function toRecord(row: TaskSessionTurnsTable): TurnRecord {
  return { ...row, metadata: parseMetadata(row.metadata) };
}

export async function startTurn(
  ctx: RepoContext,
  input: { sessionId: string; taskId: string; metadata?: Metadata },
): Promise<TurnRecord> {
  const now = ctx.clock.timestamp();
  const row: TaskSessionTurnsTable = {
    id: ctx.ids.next(),
    task_session_id: input.sessionId,
    task_id: input.taskId,
    started_at: now,
    completed_at: null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
    cancel_requested_by: null,
    cancel_requested_surface: null,
    cancel_requested_at: null,
  };
  await ctx.db.insertInto('task_session_turns').values(row).execute();
  return toRecord(row);
}

export async function getTurn(ctx: RepoContext, id: string): Promise<TurnRecord | undefined> {
  const row = await ctx.db
    .selectFrom('task_session_turns')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function completeTurn(ctx: RepoContext, id: string): Promise<TurnRecord | undefined> {
  const now = ctx.clock.timestamp();
  const row = await ctx.db
    .updateTable('task_session_turns')
    .set({ completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

/**
 * A subquery yielding the ID of `session`'s current turn, for use inside
 * larger statements (claims, active-bundle reads) so the rule is written once.
 */
export function currentTurnIdOf(ctx: RepoContext, session: Expression<string> | string) {
  const { dialect } = ctx;
  const authoritative = sql<SqlBool>`(
    NOT ${dialect.metadataFlag('prompt_dispatch_pending', 't')}
    OR ${dialect.metadataFlag('prompt_dispatch_attempted', 't')}
    OR EXISTS (SELECT 1 FROM task_session_messages r WHERE r.turn_id = t.id)
  )`;
  return ctx.db
    .selectFrom('task_session_turns as t')
    .select('t.id')
    .where('t.task_session_id', '=', session)
    .where(authoritative)
    .orderBy('t.started_at', 'desc')
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(ONE_ROW);
}

export async function currentTurn(
  ctx: RepoContext,
  sessionId: string,
): Promise<TurnRecord | undefined> {
  const [row] = await currentTurnStatement(ctx, '', sessionId);
  return row && toRecord(row);
}

// Read on every ask: built once (`compiled.ts`).
const currentTurnStatement = compiledStatement(
  'current turn',
  (ctx: RepoContext, sessionId: string) =>
    ctx.db
      .selectFrom('task_session_turns')
      .selectAll()
      .where('id', '=', currentTurnIdOf(ctx, sessionId)),
);

/**
 * Keeps a person's cancel of the session's running turn for the replica that
 * runs its agent (several servers): durable, so a lost wake-up delays the
 * cancel and never drops it; with who asked and where. Whether a running turn took it.
 */
export async function requestTurnCancel(
  ctx: RepoContext,
  input: { sessionId: string; userId: string; surface: DecisionSurface },
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('task_session_turns')
    .set({
      cancel_requested_by: input.userId,
      cancel_requested_surface: input.surface,
      cancel_requested_at: ctx.clock.timestamp(),
    })
    .where('id', '=', currentTurnIdOf(ctx, input.sessionId))
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes the running turn's waiting cancel request, once: who asked (by their
 * name now) and where, unknown for a person since deleted.
 */
export async function takeTurnCancel(
  ctx: RepoContext,
  sessionId: string,
): Promise<{ readonly turnId: string; readonly by: Responder | undefined } | undefined> {
  const taken = await ctx.db
    .updateTable('task_session_turns')
    .set({ cancel_requested_at: null })
    .where('id', '=', currentTurnIdOf(ctx, sessionId))
    .where('completed_at', 'is', null)
    .where('cancel_requested_at', 'is not', null)
    .returning(['id', 'cancel_requested_by', 'cancel_requested_surface'])
    .executeTakeFirst();
  if (!taken) return undefined;
  const userId = taken.cancel_requested_by;
  const user =
    userId === null
      ? undefined
      : await ctx.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
  const by =
    userId === null || user === undefined
      ? undefined
      : { user_id: userId, name: user.name, surface: surfaceOf(taken.cancel_requested_surface) };
  return { turnId: taken.id, by };
}

/** A cancel kept before its surface was, or one this build does not know, reads as the web's. */
function surfaceOf(text: string | null): DecisionSurface {
  return DECISION_SURFACES.find((surface) => surface === text) ?? 'web';
}

/** The sessions in `scope` whose running turn has a cancel waiting. */
export async function sessionsWithCancelRequest(
  ctx: RepoContext,
  scope: SessionScope,
): Promise<string[]> {
  const rows = await cancelRequestsQuery(ctx, scope).execute();
  return rows.map((row) => row.task_session_id);
}

/** Every replica polls this: it reads `idx_turns_cancel_requested`, nearly empty. */
export function cancelRequestsQuery(ctx: RepoContext, scope: SessionScope) {
  return ctx.db
    .selectFrom('task_session_turns')
    .select('task_session_id')
    .distinct()
    .where('completed_at', 'is', null)
    .where('cancel_requested_at', 'is not', null)
    .where(sessionInScope(ctx, scope, 'task_session_turns.task_session_id'));
}

/** What a successor turn records about the claim it will deliver, for start-up recovery. */
export interface DispatchRecovery {
  pendingId: string;
  clarificationTurnId: string;
  messageIds: readonly string[];
}

/**
 * What publishing a reservation drops. The pending ID stays: the published
 * turn carries that bundle's answer, and start-up recovery asks whether the
 * turn that carried an answer ever finished.
 */
const RESERVATION_KEYS = [
  'prompt_dispatch_pending',
  'prompt_dispatch_attempted',
  'prompt_dispatch_clarification_turn_id',
  'prompt_dispatch_clarification_message_ids',
] as const;

/**
 * Reserves the turn a detached answer will start. Until it is marked
 * attempted it is not authoritative: the answered bundle's turn stays current.
 */
export async function reserveSuccessorTurn(
  ctx: RepoContext,
  input: { sessionId: string; taskId: string; recovery: DispatchRecovery },
): Promise<TurnRecord> {
  return startTurn(ctx, {
    sessionId: input.sessionId,
    taskId: input.taskId,
    metadata: {
      prompt_dispatch_pending: true,
      prompt_dispatch_clarification_pending_id: input.recovery.pendingId,
      prompt_dispatch_clarification_turn_id: input.recovery.clarificationTurnId,
      prompt_dispatch_clarification_message_ids: [...input.recovery.messageIds],
    },
  });
}

/** The at-most-once boundary: once this commits, the prompt is never sent again. */
export async function markDispatchAttempted(ctx: RepoContext, turnId: string): Promise<boolean> {
  const result = await ctx.db
    .updateTable('task_session_turns')
    .set({
      metadata: ctx.dialect.metadataSet([['prompt_dispatch_attempted', jsonValue(true)]]),
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', '=', turnId)
    .where(ctx.dialect.metadataFlag('prompt_dispatch_pending'))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The agent accepted the prompt: the turn becomes an ordinary turn. */
export async function publishReservedTurn(
  ctx: RepoContext,
  turnId: string,
): Promise<TurnRecord | undefined> {
  const row = await ctx.db
    .updateTable('task_session_turns')
    .set({
      metadata: ctx.dialect.metadataRemove(RESERVATION_KEYS),
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', '=', turnId)
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

/** Drops a reservation that was never attempted and that nothing refers to. */
export async function deleteUnattemptedReservation(
  ctx: RepoContext,
  turnId: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('task_session_turns')
    .where('id', '=', turnId)
    .where(ctx.dialect.metadataFlag('prompt_dispatch_pending'))
    .where(sql<SqlBool>`NOT ${ctx.dialect.metadataFlag('prompt_dispatch_attempted')}`)
    .where(
      sql<SqlBool>`NOT EXISTS (SELECT 1 FROM task_session_messages r WHERE r.turn_id = task_session_turns.id)`,
    )
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/**
 * Whether a detached answer's successor turn is reserved in the session and
 * not yet settled or released: its prompt may be on its way to the agent.
 */
export async function hasReservedTurn(ctx: RepoContext, sessionId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_turns')
    .select('id')
    .where('task_session_id', '=', sessionId)
    .where(ctx.dialect.metadataFlag('prompt_dispatch_pending'))
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row !== undefined;
}

/** Turns still carrying a reservation, oldest first, for start-up recovery. */
export async function pendingReservations(
  ctx: RepoContext,
  scope: SessionScope = ALL_SESSIONS,
): Promise<TurnRecord[]> {
  const rows = await ctx.db
    .selectFrom('task_session_turns')
    .selectAll()
    .where(ctx.dialect.metadataFlag('prompt_dispatch_pending'))
    .where(sessionInScope(ctx, scope, 'task_session_turns.task_session_id'))
    .orderBy('task_session_id')
    .orderBy('started_at')
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}

/** Whether any message belongs to the turn (an ambiguous acceptance, for recovery). */
export async function turnHasMessages(ctx: RepoContext, turnId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('turn_id', '=', turnId)
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row !== undefined;
}
