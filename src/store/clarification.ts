/**
 * SQL of the clarification lifecycle (DESIGN §5): the ask's checks, the
 * session's revision read with its questions, and what detaches, expires,
 * cancels or attaches a bundle's rows again. Every statement that decides a
 * bundle's fate carries the guards of `clarification-guards.ts`; the claim
 * and its delivery are `clarification-claims.ts`. Pending-ID predicates use
 * the dialect's expression verbatim so they seek the ordered index.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { compiledStatement, ONE_ROW, constantText } from './compiled.js';
import { jsonValue } from './dialect.js';
import type { RepoContext } from './context.js';
import {
  boundSessionLive,
  byCreation,
  inCurrentTurn,
  isPending,
  sessionLive,
} from './clarification-guards.js';
import { sessionInScope, type SessionScope } from './leases.js';
import { chunks } from './chunks.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import type { SessionRecord } from './tasks.js';
import {
  CLARIFICATION_TYPE,
  type Responder,
  type SessionFailureCode,
  type SessionState,
} from '../wire/index.js';
import { currentTurnIdOf } from './turns.js';

export { CLARIFICATION_TYPE };

/**
 * Pending rows of one session's current turn whose bundle carries
 * `fingerprint`. The turn is the session's current one, found once from the
 * bound session ID, so the rows are reached through the small pending-rows
 * index on that turn: a session's transcript grows with every question it
 * asked, and the ask's duplicate check must not read it (correlated to the
 * row's own session, this check read every row of the session through the
 * session-leading index, 3 ms per ask after 1,000 cycles in one session).
 */
export async function activePendingIdByFingerprint(
  ctx: RepoContext,
  sessionId: string,
  fingerprint: string,
): Promise<string | undefined> {
  const [row] = await fingerprintStatement(ctx, '', sessionId, fingerprint);
  return row?.pending_id ?? undefined;
}

export function activePendingIdByFingerprintQuery(
  ctx: RepoContext,
  sessionId: string,
  fingerprint: string,
) {
  return ctx.db
    .selectFrom('task_session_messages')
    .select(ctx.dialect.metadataText('pending_id').as('pending_id'))
    .where('turn_id', '=', currentTurnIdOf(ctx, sessionId))
    .where('task_session_id', '=', sessionId)
    .where(ctx.dialect.pendingClarificationRow())
    .where(sql<SqlBool>`${ctx.dialect.metadataText('request_fingerprint')} = ${fingerprint}`)
    .where(boundSessionLive(sessionId))
    .limit(ONE_ROW);
}

const fingerprintStatement = compiledStatement(
  'active pending ID by fingerprint',
  activePendingIdByFingerprintQuery,
);

/**
 * How many bundles wait on a person in one session's current turn: what an
 * ask counts against `OPEN_ASKS_PER_AGENT`. Read inside the ask's session
 * write, under the session's lock, so two asks racing for the last place are
 * counted one after the other. It seeks the same small pending-rows index as
 * the fingerprint check and never reads the session's whole transcript. The
 * current turn names its session (turn IDs are unique), so the rows are not
 * filtered by session too: with that filter SQLite counted through the
 * session-leading pending-ID index, every question the session ever asked.
 */
export async function openBundleCount(ctx: RepoContext, sessionId: string): Promise<number> {
  const [row] = await openBundleCountStatement(ctx, '', sessionId);
  return Number(row?.open ?? 0);
}

export function openBundleCountQuery(ctx: RepoContext, sessionId: string) {
  return ctx.db
    .selectFrom('task_session_messages')
    .select(sql<number | string>`COUNT(DISTINCT ${ctx.dialect.pendingId()})`.as('open'))
    .where('turn_id', '=', currentTurnIdOf(ctx, sessionId))
    .where(ctx.dialect.pendingClarificationRow());
}

const openBundleCountStatement = compiledStatement('open bundle count', openBundleCountQuery);

/**
 * A session waiting for input runs again once no question of its current
 * turn is open any more (the last one answered or cancelled): what
 * `waiting_for_input` means, read in the same statement as the move, so the
 * respond path's hand-off adds no round trip for it. It is idle again
 * instead when that turn already ended (its agent asked between turns):
 * `running` with no turn to end it would queue every message for good.
 * `undefined` when the session did not move.
 */
export async function endWaitWhenNoneOpen(
  ctx: RepoContext,
  sessionId: string,
): Promise<SessionRecord | undefined> {
  const [row] = await endWaitStatement(ctx, '', sessionId, ctx.clock.timestamp());
  return row;
}

const endWaitStatement = compiledStatement(
  'end the wait when no question is open',
  (ctx: RepoContext, sessionId: string, updatedAt: string) =>
    ctx.db
      .updateTable('task_sessions')
      .set((eb) => ({
        state: eb
          .case()
          .when(
            eb.exists(
              eb
                .selectFrom('task_session_turns')
                .select(sql<number>`1`.as('running'))
                .where('id', '=', currentTurnIdOf(ctx, sessionId))
                .where('completed_at', 'is', null),
            ),
          )
          .then('running')
          .else('idle')
          .end()
          .$castTo<SessionState>(),
        revision: eb('revision', '+', 1),
        updated_at: updatedAt,
      }))
      .where('id', '=', sessionId)
      .where('state', '=', 'waiting_for_input')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('task_session_messages')
              .select(sql<number>`1`.as('open'))
              .where('turn_id', '=', currentTurnIdOf(ctx, sessionId))
              .where(ctx.dialect.pendingClarificationRow()),
          ),
        ),
      )
      .returningAll(),
);

/**
 * `pendingClarificationRow` of the dialect, read from a row already in hand:
 * a clarification row, still pending, with a pending ID.
 */
export function isPendingClarificationRow(row: MessageRecord): boolean {
  const { status, pending_id: pendingId } = row.metadata;
  return (
    row.type === CLARIFICATION_TYPE &&
    (status === undefined || status === null || status === 'pending') &&
    pendingId !== undefined &&
    pendingId !== null
  );
}

/**
 * Whether a session waits on a person for a clarification: one row of the
 * small pending-rows index, not the rows themselves. A row without a pending
 * ID is malformed and never answerable, so it does not count.
 */
export async function hasActiveClarification(
  ctx: RepoContext,
  sessionId: string,
): Promise<boolean> {
  const rows = await hasActiveStatement(ctx, '', sessionId);
  return rows.length > 0;
}

/**
 * `hasActiveClarification`'s statement; exported so tests read its real text.
 * `session` is a bound ID, or a reference to an outer query's session row.
 */
export function hasActiveClarificationQuery(
  ctx: RepoContext,
  sessionId: Expression<string> | string,
) {
  return ctx.db
    .selectFrom('task_session_messages')
    .select(sql<number>`1`.as('one'))
    .where('turn_id', '=', currentTurnIdOf(ctx, sessionId))
    .where('task_session_id', '=', sessionId)
    .where(ctx.dialect.pendingClarificationRow())
    .where(sessionLive())
    .limit(ONE_ROW);
}

const hasActiveStatement = compiledStatement(
  'has active clarification',
  hasActiveClarificationQuery,
);

/** A session after its revision bump, with `hasActiveClarification` as of that moment. */
export interface RevisedSession {
  readonly session: SessionRecord;
  readonly activeClarification: boolean;
}

/**
 * A new revision for a session whose transcript changed, and whether it then
 * waits on a clarification: the write unit's two statements as one (the
 * probe sees the write's earlier statements, and the bump moves no state).
 * `undefined` if the session is gone.
 */
export async function bumpRevisionReadingClarification(
  ctx: RepoContext,
  sessionId: string,
): Promise<RevisedSession | undefined> {
  const [row] = await bumpRevisionStatement(ctx, '', sessionId);
  if (!row) return undefined;
  const { active_clarification: active, ...session } = row;
  // SQLite answers a truth value as 1 or 0, PostgreSQL as a boolean.
  return { session, activeClarification: Number(active) === 1 };
}

/**
 * A task's sessions, oldest first, each with `hasActiveClarification` as of
 * the same read: one statement for the whole list, not one probe per session
 * (the session list a client reloads on every reconnect).
 */
export async function listSessionsReadingClarification(
  ctx: RepoContext,
  taskId: string,
): Promise<RevisedSession[]> {
  const rows = await ctx.db
    .selectFrom('task_sessions')
    .selectAll('task_sessions')
    .select((eb) =>
      eb
        .exists(hasActiveClarificationQuery(ctx, eb.ref('task_sessions.id')))
        .as('active_clarification'),
    )
    .where('task_sessions.task_id', '=', taskId)
    .orderBy('task_sessions.created_at')
    .orderBy('task_sessions.id')
    .execute();
  // SQLite answers a truth value as 1 or 0, PostgreSQL as a boolean.
  return rows.map(({ active_clarification: active, ...session }) => ({
    session,
    activeClarification: Number(active) === 1,
  }));
}

const bumpRevisionStatement = compiledStatement(
  'session revision',
  (ctx: RepoContext, sessionId: string) =>
    ctx.db
      .updateTable('task_sessions')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', sessionId)
      .returningAll()
      .returning((eb) =>
        eb.exists(hasActiveClarificationQuery(ctx, sessionId)).as('active_clarification'),
      ),
);

/**
 * The asker waits on its bundle again (a repeated ask, or its
 * `wait_for_answer`): the bundle's pending rows are attached again and, with
 * several replicas, name the one the wait runs on, so an answer or a cancel
 * on any replica finds it there. Without `replicaId` they keep the one they
 * name.
 */
export function reattachBundleRows(
  ctx: RepoContext,
  pendingId: string,
  replicaId: string | undefined,
): Promise<MessageRecord[]> {
  return updatePendingRows(
    ctx,
    { pendingId },
    [
      ...(replicaId === undefined ? [] : ([['asked_on', jsonValue(replicaId)]] as const)),
      ['agent_disconnected', jsonValue(false)],
    ],
    { liveSession: true, stillAttached: false },
  );
}

type RowScope = { sessionId: string } | { pendingId: string };

/**
 * One guarded update of pending clarification rows in their session's current
 * turn: the shape detach, expiry and cancel share. `also` is one more guard
 * on each row.
 */
export async function updatePendingRows(
  ctx: RepoContext,
  scope: RowScope,
  entries: Parameters<RepoContext['dialect']['metadataSet']>[0],
  guards: { liveSession: boolean; stillAttached: boolean; also?: Expression<SqlBool> },
): Promise<MessageRecord[]> {
  let query = ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: ctx.dialect.metadataSet(entries), updated_at: ctx.clock.timestamp() })
    .where('type', '=', constantText(CLARIFICATION_TYPE))
    .where(isPending(ctx))
    .where(inCurrentTurn(ctx));
  // A session's rows are reached through its current turn's index, a bundle's through the
  // ordered pending-ID index; neither reads the whole transcript.
  query =
    'sessionId' in scope
      ? query
          .where('turn_id', '=', currentTurnIdOf(ctx, scope.sessionId))
          .where('task_session_id', '=', scope.sessionId)
      : query.where(ctx.dialect.pendingId(), '=', scope.pendingId);
  if (guards.liveSession) query = query.where(sessionLive());
  if (guards.stillAttached) {
    query = query.where(sql<SqlBool>`NOT ${ctx.dialect.metadataFlag('agent_disconnected')}`);
  }
  if (guards.also) query = query.where(guards.also);
  const rows = await query.returningAll().execute();
  return rows.map(toMessageRecord).sort(byCreation);
}

/** Marks the live wait of a session's active rows as ended; repeats change nothing. */
export function detachSessionRows(ctx: RepoContext, sessionId: string): Promise<MessageRecord[]> {
  return updatePendingRows(ctx, { sessionId }, [['agent_disconnected', jsonValue(true)]], {
    liveSession: true,
    stillAttached: true,
  });
}

/** An active bundle no live wait may be holding any more, as recovery reads it. */
export interface AttachedBundle {
  readonly sessionId: string;
  readonly pendingId: string;
  /** The replica its wait began on (several replicas only). */
  readonly askedOn: string | undefined;
}

/**
 * The active bundles in `scope` still marked attached: after a crash no call
 * waits on them, though nothing said so (a clean stop detaches them). Read
 * through the pending-rows index, which holds only rows still pending.
 */
export async function attachedBundles(
  ctx: RepoContext,
  scope: SessionScope,
): Promise<AttachedBundle[]> {
  const { dialect } = ctx;
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .select([
      'task_session_id',
      dialect.pendingId().as('pending_id'),
      dialect.metadataText('asked_on').as('asked_on'),
    ])
    .where(dialect.pendingClarificationRow())
    .where(sql<SqlBool>`NOT ${dialect.metadataFlag('agent_disconnected')}`)
    .where(inCurrentTurn(ctx))
    .where(sessionLive())
    .where(sessionInScope(ctx, scope, 'task_session_messages.task_session_id'))
    .execute();
  const bundles = new Map<string, AttachedBundle>();
  for (const row of rows) {
    if (row.pending_id === null || bundles.has(row.pending_id)) continue;
    bundles.set(row.pending_id, {
      sessionId: row.task_session_id,
      pendingId: row.pending_id,
      askedOn: row.asked_on ?? undefined,
    });
  }
  return [...bundles.values()];
}

/** Marks one active bundle's live wait as ended; repeats change nothing. */
export function detachBundleRows(ctx: RepoContext, pendingId: string): Promise<MessageRecord[]> {
  return updatePendingRows(ctx, { pendingId }, [['agent_disconnected', jsonValue(true)]], {
    liveSession: true,
    stillAttached: true,
  });
}

/**
 * Expires the current turn's pending rows of a session that has ended (or is
 * ending). The session-state guard is deliberately absent: expiry runs after
 * the state moved to terminal. `expiredBy`, the session's failure, is kept on
 * each row so that readers can say why the question ended.
 */
export function expireSessionRows(
  ctx: RepoContext,
  sessionId: string,
  expiredBy: SessionFailureCode,
): Promise<MessageRecord[]> {
  return updatePendingRows(
    ctx,
    { sessionId },
    [
      ['status', jsonValue('expired')],
      ['agent_disconnected', jsonValue(true)],
      ['expired_by', jsonValue(expiredBy)],
    ],
    { liveSession: false, stillAttached: false },
  );
}

/**
 * The pending IDs of a session's current turn's pending rows: the bundles a
 * deletion takes from whoever waits on them, read in its transaction before
 * the rows go with the session.
 */
export async function pendingIdsOfSession(ctx: RepoContext, sessionId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .select(ctx.dialect.pendingId().as('pending_id'))
    .where('type', '=', constantText(CLARIFICATION_TYPE))
    .where(isPending(ctx))
    .where('turn_id', '=', currentTurnIdOf(ctx, sessionId))
    .where('task_session_id', '=', sessionId)
    .execute();
  return [...new Set(rows.flatMap((row) => (row.pending_id === null ? [] : [row.pending_id])))];
}

/** Operator cancel: the active bundle's pending rows become `cancelled`. */
export function cancelBundleRows(
  ctx: RepoContext,
  pendingId: string,
  cancelledBy: Responder,
): Promise<MessageRecord[]> {
  const entries = [
    ['status', jsonValue('cancelled')],
    ['responded_by', jsonValue(cancelledBy)],
  ] as const;
  return updatePendingRows(ctx, { pendingId }, entries, {
    liveSession: true,
    stillAttached: false,
  });
}

/** Whether each given row is in its session's current turn of a live session. */
export async function rowsStillCurrent(
  ctx: RepoContext,
  messageIds: readonly string[],
): Promise<boolean> {
  if (messageIds.length === 0) return false;
  return (await currentRowIds(ctx, messageIds)).size === new Set(messageIds).size;
}

/** Of `messageIds`, those in their session's current turn, the session not ended. */
export async function currentRowIds(
  ctx: RepoContext,
  messageIds: readonly string[],
): Promise<Set<string>> {
  const current = new Set<string>();
  for (const part of chunks([...new Set(messageIds)])) {
    const rows = await ctx.db
      .selectFrom('task_session_messages')
      .select('id')
      .where('id', 'in', part)
      .where(inCurrentTurn(ctx))
      .where(sessionLive())
      .execute();
    for (const row of rows) current.add(row.id);
  }
  return current;
}
