/**
 * SQL of the clarification lifecycle (DESIGN §5). Every statement that
 * decides a bundle's fate carries the same guards, written once here:
 * a clarification row, still pending, in its session's current turn, in a
 * session that has not ended (the claim binds them to the session and turn
 * its identity read found). Pending-ID predicates use the dialect's
 * expression verbatim so they seek the ordered index.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { compiledStatement, ONE_ROW, constantText } from './compiled.js';
import { jsonValue } from './dialect.js';
import type { RepoContext } from './context.js';
import { ALL_SESSIONS, sessionInScope, type SessionScope } from './leases.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import type { SessionRecord } from './tasks.js';
import { TERMINAL_SESSION_STATES } from './tables.js';
import { CLARIFICATION_TYPE, type Responder, type SessionFailureCode } from '../wire/index.js';
import { noLiveReplica } from './replicas.js';
import { currentTurnIdOf } from './turns.js';

export { CLARIFICATION_TYPE };

const ROW_SESSION = sql.ref<string>('task_session_messages.task_session_id');

function isPending(ctx: RepoContext): Expression<SqlBool> {
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
function boundSessionLive(sessionId: string): Expression<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM task_sessions s WHERE s.id = ${sessionId} AND ${SESSION_NOT_ENDED}
  )`;
}

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
 * respond path's hand-off adds no round trip for it. `undefined` when the
 * session did not move.
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
      .set((eb) => ({ state: 'running', revision: eb('revision', '+', 1), updated_at: updatedAt }))
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

export interface ClaimInput {
  pendingId: string;
  /** The bundle's session, as the identity read found it. */
  sessionId: string;
  /** The bundle's turn, as the identity read found it (turn IDs are unique). */
  turnId: string;
  status: 'answered' | 'rejected';
  /** The normalized answer per question ID (answered only). */
  responses: ReadonlyMap<string, unknown>;
  rejectReason: string;
  respondedAt: string;
  /** The person deciding, as the wire's `Responder`. */
  respondedBy: Responder;
  /**
   * Several replicas: the replica that delivers the claim, when the claimer
   * already knows it is itself; the claim then takes the delivery as
   * `takeDelivery` would, in the same statement.
   */
  deliveryBy?: string;
}

/**
 * The claim: one statement moves every pending row of an active bundle to its
 * terminal status with the delivery intent set. Concurrent claimers cannot
 * both see pending rows, so at most one gets rows back.
 *
 * The guards are bound to the session and turn the identity read found, so
 * each runs once per statement instead of once per row: that turn is still its
 * session's current turn, and the session lives.
 * Rows of one pending ID never disagree on type, session or turn: the only
 * writer of `pending_id` is the ask, which writes a fresh ID's rows in one
 * turn of one session in one transaction, no statement changes `pending_id`,
 * `type`, `task_session_id` or `turn_id` afterwards, and the identity read
 * refuses a bundle whose rows disagree (`readBundle`).
 */
export async function claimBundle(ctx: RepoContext, input: ClaimInput): Promise<MessageRecord[]> {
  const values = claimValues(ctx, input);
  const shape = String(input.responses.size);
  const rows =
    input.deliveryBy === undefined
      ? await claimStatement(ctx, shape, ...values)
      : await takenClaimStatement(ctx, shape, JSON.stringify(input.deliveryBy), ...values);
  return rows.map(toMessageRecord).sort(byCreation);
}

/** The claim statement itself; exported so plan tests explain the real text. */
export function claimBundleQuery(ctx: RepoContext, input: ClaimInput) {
  return claimQuery(ctx, ...claimValues(ctx, input));
}

/**
 * The claim's bound values, in `claimQuery`'s order: JSON texts already
 * serialized, then each question ID followed by its response's JSON.
 */
type ClaimValues = [
  pendingId: string,
  sessionId: string,
  turnId: string,
  status: string,
  rejectReason: string,
  respondedAt: string,
  respondedBy: string,
  updatedAt: string,
  ...whens: string[],
];

function claimValues(ctx: RepoContext, input: ClaimInput): ClaimValues {
  const whens = [...input.responses].flatMap(([questionId, response]) => [
    questionId,
    JSON.stringify(response),
  ]);
  return [
    input.pendingId,
    input.sessionId,
    input.turnId,
    JSON.stringify(input.status),
    JSON.stringify(input.rejectReason),
    JSON.stringify(input.respondedAt),
    JSON.stringify(input.respondedBy),
    ctx.clock.timestamp(),
    ...whens,
  ];
}

function claimQuery(ctx: RepoContext, ...values: ClaimValues) {
  return claimQueryTaking(ctx, undefined, ...values);
}

/** The claim; `deliveryBy` (JSON text) also takes its delivery for a replica. */
function claimQueryTaking(
  ctx: RepoContext,
  deliveryBy: string | undefined,
  ...values: ClaimValues
) {
  const { dialect } = ctx;
  const [
    pendingId,
    sessionId,
    turnId,
    status,
    rejectReason,
    respondedAt,
    respondedBy,
    updatedAt,
    ...pairs
  ] = values;
  const whens: RawBuilder<unknown>[] = [];
  for (let index = 0; index + 1 < pairs.length; index += 2) {
    whens.push(sql`WHEN ${pairs[index]} THEN ${pairs[index + 1]}`);
  }
  const response =
    whens.length > 0
      ? sql`CASE ${dialect.metadataText('question_id')} ${sql.join(whens, sql` `)} ELSE 'null' END`
      : jsonValue(null);
  return (
    ctx.db
      .updateTable('task_session_messages')
      .set({
        metadata: dialect.metadataSet([
          ['status', sql<string>`${status}`],
          ['response', response],
          ['reject_reason', sql<string>`${rejectReason}`],
          ['responded_at', sql<string>`${respondedAt}`],
          ['responded_by', sql<string>`${respondedBy}`],
          ['response_delivery_pending', jsonValue(true)],
          ...(deliveryBy === undefined
            ? []
            : ([['delivery_by', sql<string>`${deliveryBy}`]] as const)),
        ]),
        updated_at: updatedAt,
      })
      .where(dialect.pendingId(), '=', pendingId)
      .where('type', '=', constantText(CLARIFICATION_TYPE))
      .where(isPending(ctx))
      // The bundle's rows all carry `turnId` (see above), so the turn is checked once,
      // not per row: a row predicate on `turn_id` would let a planner reach the rows
      // through the turn index instead of the ordered pending-ID index (DESIGN §4).
      .where(sql<SqlBool>`${turnId} = (${currentTurnIdOf(ctx, sessionId)})`)
      .where(boundSessionLive(sessionId))
      .returningAll()
  );
}

const claimStatement = compiledStatement('claim', claimQuery);
const takenClaimStatement = compiledStatement(
  'claim taken for delivery',
  (ctx: RepoContext, deliveryBy: string, ...values: ClaimValues) =>
    claimQueryTaking(ctx, deliveryBy, ...values),
);

/** Clears the delivery intent of claimed rows: the hand-off is confirmed (or given up). */
export async function clearDeliveryIntent(
  ctx: RepoContext,
  messageIds: readonly string[],
): Promise<MessageRecord[]> {
  if (messageIds.length === 0) return [];
  const updatedAt = ctx.clock.timestamp();
  const rows = await clearIntentStatement(ctx, String(messageIds.length), updatedAt, ...messageIds);
  return rows.map(toMessageRecord).sort(byCreation);
}

const clearIntentStatement = compiledStatement(
  'clear delivery intent',
  (ctx: RepoContext, updatedAt: string, ...messageIds: string[]) =>
    ctx.db
      .updateTable('task_session_messages')
      .set({
        metadata: ctx.dialect.metadataRemove(['response_delivery_pending', 'delivery_by']),
        updated_at: updatedAt,
      })
      .where('id', 'in', messageIds)
      .where(ctx.dialect.metadataFlag('response_delivery_pending'))
      .returningAll(),
);

/** Whether a claimed row's delivery taker is `takenBy` (`null`: nobody took it). */
function takenByIs(ctx: RepoContext, takenBy: string | null): RawBuilder<SqlBool> {
  const taker = ctx.dialect.metadataText('delivery_by');
  return takenBy === null ? sql<SqlBool>`${taker} IS NULL` : sql<SqlBool>`${taker} = ${takenBy}`;
}

/**
 * Puts claimed rows back to pending, all or none: only while they still carry
 * the claim (status and intent), their turn is current and the session lives.
 * Returns undefined, changing nothing, when any row no longer qualifies.
 * A recovery passes `takenBy`, the taker it judged gone: a replica that took
 * the delivery since keeps it. On PostgreSQL the rows stay locked from this
 * check to the commit, so no take slips in between.
 */
export async function restoreClaim(
  ctx: RepoContext,
  messageIds: readonly string[],
  status: 'answered' | 'rejected',
  options: { detached: boolean; takenBy?: string | null },
): Promise<MessageRecord[] | undefined> {
  if (messageIds.length === 0) return [];
  const { dialect } = ctx;
  const { takenBy } = options;
  const restorable = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('id', 'in', messageIds)
    .where(sql<SqlBool>`${dialect.metadataText('status')} = ${constantText(status)}`)
    .where(dialect.metadataFlag('response_delivery_pending'))
    .where(inCurrentTurn(ctx))
    .where(sessionLive())
    .$if(takenBy !== undefined, (query) => query.where(takenByIs(ctx, takenBy ?? null)))
    .$if(dialect.driver === 'postgres', (query) => query.forUpdate())
    .execute();
  if (restorable.length !== messageIds.length) return undefined;
  const rows = await ctx.db
    .updateTable('task_session_messages')
    .set({
      metadata: dialect.metadataSet(
        [
          ['status', jsonValue('pending')],
          // No live waiter is left to take a retry: the bundle is detached now.
          ...(options.detached ? ([['agent_disconnected', jsonValue(true)]] as const) : []),
        ],
        dialect.metadataRemove([
          'response',
          'reject_reason',
          'responded_at',
          'response_delivery_pending',
          'delivery_by',
        ]),
      ),
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', 'in', messageIds)
    .returningAll()
    .execute();
  return rows.map(toMessageRecord).sort(byCreation);
}

/**
 * A recovery's retire of a claim whose bundle moved on: clears the intent
 * while the rows' taker is still `takenBy`, in one statement, so a claim a
 * replica took since stays that replica's to deliver. The rows it cleared.
 */
export async function retireClaim(
  ctx: RepoContext,
  messageIds: readonly string[],
  takenBy: string | null,
): Promise<MessageRecord[]> {
  if (messageIds.length === 0) return [];
  const rows = await ctx.db
    .updateTable('task_session_messages')
    .set({
      metadata: ctx.dialect.metadataRemove(['response_delivery_pending', 'delivery_by']),
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', 'in', messageIds)
    .where(ctx.dialect.metadataFlag('response_delivery_pending'))
    .where(takenByIs(ctx, takenBy))
    .returningAll()
    .execute();
  return rows.map(toMessageRecord).sort(byCreation);
}

/**
 * Several replicas (issue 16): takes the delivery of claimed rows for
 * `replicaId`, all or none, while they carry the intent and nobody took them.
 * Whoever takes them is the one replica that delivers; the rows' revision and
 * `updated_at` stay, since nothing a person sees changed.
 */
export async function takeDelivery(
  ctx: RepoContext,
  messageIds: readonly string[],
  replicaId: string,
): Promise<boolean> {
  if (messageIds.length === 0) return false;
  const rows = await ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: ctx.dialect.metadataSet([['delivery_by', jsonValue(replicaId)]]) })
    .where('id', 'in', messageIds)
    .where(ctx.dialect.metadataFlag('response_delivery_pending'))
    .where(takenByIs(ctx, null))
    .returning('id')
    .execute();
  return rows.length === messageIds.length;
}

/** A claim that waits for its delivery and that no replica has taken. */
export interface UntakenClaim {
  readonly pendingId: string;
  /** When its rows were last written (the claim, or a route that gave the delivery back). */
  readonly claimedAt: string;
  /** The replica whose lease row names the bundle's session, live or not; null without one. */
  readonly holder: string | null;
}

/**
 * Claims nobody has taken that still wait for their delivery: a replica's
 * poll routes again those whose announcement it may have missed. Reads the
 * nearly empty delivery-intent index.
 */
export async function untakenClaims(ctx: RepoContext): Promise<UntakenClaim[]> {
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .leftJoin(
      'session_leases',
      'session_leases.session_id',
      'task_session_messages.task_session_id',
    )
    .select([
      ctx.dialect.pendingId().as('pending_id'),
      (eb) => eb.fn.max('task_session_messages.updated_at').as('at'),
      (eb) => eb.fn.max('session_leases.replica_id').as('holder'),
    ])
    .where(ctx.dialect.metadataFlag('response_delivery_pending'))
    .where(takenByIs(ctx, null))
    .groupBy(ctx.dialect.pendingId())
    .execute();
  return rows.flatMap((row) =>
    row.pending_id ? [{ pendingId: row.pending_id, claimedAt: row.at, holder: row.holder }] : [],
  );
}

/**
 * Several replicas: gives back the delivery of claims in sessions of
 * `agentProfile` (an external agent's) whose taker no longer runs, so a poll
 * routes them again (`untakenClaims`). No replica holds such a
 * session, so no takeover recovers them, and their delivery is the intent's
 * clear alone: nothing of it can have run twice. Returns how many rows.
 */
export async function releaseOrphanedDeliveries(
  ctx: RepoContext,
  heartbeatAfter: string,
  agentProfile: string,
): Promise<number> {
  const { dialect } = ctx;
  const taker = dialect.metadataText('delivery_by', 'task_session_messages');
  const result = await ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: dialect.metadataRemove(['delivery_by']) })
    .where(dialect.metadataFlag('response_delivery_pending'))
    .where(sql<SqlBool>`${taker} IS NOT NULL`)
    .where(noLiveReplica(ctx, taker, heartbeatAfter))
    .where(
      'task_session_id',
      'in',
      ctx.db.selectFrom('task_sessions').select('id').where('agent_profile', '=', agentProfile),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The live wait a claim was meant for has ended on the replica it began on:
 * its rows say so, so no replica routes the delivery back there.
 */
export async function detachClaim(ctx: RepoContext, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length === 0) return;
  await ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: ctx.dialect.metadataSet([['agent_disconnected', jsonValue(true)]]) })
    .where('id', 'in', messageIds)
    .where(ctx.dialect.metadataFlag('response_delivery_pending'))
    .execute();
}

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

/**
 * Clarification rows that still carry a delivery intent, for start-up
 * recovery. `pending_id IS NOT NULL` lets the partial ordered index bound the
 * scan to clarification rows instead of the whole transcript table.
 */
export async function rowsWithDeliveryIntent(
  ctx: RepoContext,
  scope: SessionScope = ALL_SESSIONS,
): Promise<MessageRecord[]> {
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where(sql<SqlBool>`${ctx.dialect.pendingId()} IS NOT NULL`)
    .where(ctx.dialect.metadataFlag('response_delivery_pending'))
    .where(sessionInScope(ctx, scope, 'task_session_messages.task_session_id'))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toMessageRecord);
}

/** Whether each given row is in its session's current turn of a live session. */
export async function rowsStillCurrent(
  ctx: RepoContext,
  messageIds: readonly string[],
): Promise<boolean> {
  if (messageIds.length === 0) return false;
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('id', 'in', messageIds)
    .where(inCurrentTurn(ctx))
    .where(sessionLive())
    .execute();
  return rows.length === messageIds.length;
}

function byCreation(a: MessageRecord, b: MessageRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
