/**
 * The claim and its delivery (DESIGN §5): one statement moves a bundle's
 * pending rows to the person's decision with the delivery intent set; the
 * intent is cleared by whoever hands the answer to the agent, put back to
 * pending or retired by a recovery, and, with several replicas, taken by the
 * one replica that delivers.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { CLARIFICATION_TYPE, type Responder } from '../wire/index.js';
import { compiledStatement, constantText } from './compiled.js';
import {
  boundSessionLiveFor,
  byCreation,
  inCurrentTurn,
  isPending,
  sessionLive,
} from './clarification-guards.js';
import type { RepoContext } from './context.js';
import { jsonValue } from './dialect.js';
import { ALL_SESSIONS, sessionInScope, type SessionScope } from './leases.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import { noLiveReplica } from './replicas.js';
import { currentTurnIdOf } from './turns.js';

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
 * session's current turn, the session lives, and the responder still belongs
 * to its workspace (their identity read judged it a moment before; an admin
 * may have removed them since).
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
  responderId: string,
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
    input.respondedBy.user_id,
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
    responderId,
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
      // The person still belongs to the session's workspace: removed since their identity
      // read, their decision is not claimed (and they hear what an outsider hears).
      .where(boundSessionLiveFor(sessionId, responderId))
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
          'responded_by',
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
