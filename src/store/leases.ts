/**
 * Session leases (issue 16): the replica that runs a session's agent holds a
 * row here until `expires_at`, renewed with every heartbeat. A lease is live
 * while it has not expired and its holder runs (`leaseHolderRuns`). Taking
 * one (free, own, or dead) and taking over the dead are each one conditional
 * statement, so replicas racing for a session get one winner.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { RepoContext } from './context.js';
import { leaseHolderRuns, noLiveReplica, replicaLive } from './replicas.js';

/** Whether the lease aliased `alias` is live at `now`. */
function leaseLive(ctx: RepoContext, alias: string, now: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${alias}.expires_at`)} > ${now} AND ${leaseHolderRuns(ctx, alias)})`;
}

export interface LeaseTerms {
  readonly replicaId: string;
  /** The timestamp the lease is judged at. */
  readonly now: string;
  /** When a lease taken or renewed now ends. */
  readonly expiresAt: string;
}

/** Takes the session's lease when it is free, already ours, or no longer live; whether we hold it. */
export async function acquireLease(
  ctx: RepoContext,
  sessionId: string,
  terms: LeaseTerms,
): Promise<boolean> {
  const { replicaId, now, expiresAt } = terms;
  const result = await sql<{ session_id: string }>`
    INSERT INTO session_leases (session_id, replica_id, acquired_at, expires_at)
    VALUES (${sessionId}, ${replicaId}, ${now}, ${expiresAt})
    ON CONFLICT (session_id) DO UPDATE SET
      replica_id = excluded.replica_id,
      acquired_at = CASE WHEN session_leases.replica_id = excluded.replica_id
        THEN session_leases.acquired_at ELSE excluded.acquired_at END,
      expires_at = excluded.expires_at
    WHERE session_leases.replica_id = excluded.replica_id
      OR NOT ${leaseLive(ctx, 'session_leases', now)}
    RETURNING session_id
  `.execute(ctx.db);
  return result.rows.length > 0;
}

/** Renews every lease the replica holds, in one statement; the sessions it still holds. */
export async function renewLeases(
  ctx: RepoContext,
  replicaId: string,
  expiresAt: string,
): Promise<string[]> {
  const rows = await ctx.db
    .updateTable('session_leases')
    .set({ expires_at: expiresAt })
    .where('replica_id', '=', replicaId)
    .returning('session_id')
    .execute();
  return rows.map((row) => row.session_id);
}

/**
 * Takes every lease that is no longer live from other replicas, in one
 * statement: a concurrent taker re-reads each row after the first commits and
 * finds it live again, so each session is taken once. The sessions taken.
 */
export async function takeOverLeases(ctx: RepoContext, terms: LeaseTerms): Promise<string[]> {
  const { replicaId, now, expiresAt } = terms;
  const result = await sql<{ session_id: string }>`
    UPDATE session_leases
    SET replica_id = ${replicaId}, acquired_at = ${now}, expires_at = ${expiresAt}
    WHERE replica_id <> ${replicaId} AND NOT ${leaseLive(ctx, 'session_leases', now)}
    RETURNING session_id
  `.execute(ctx.db);
  return result.rows.map((row) => row.session_id).sort();
}

/**
 * Takes the lease of each session that has no lease row (after a takeover
 * took the dead ones), is not `exceptProfile`'s, and holds a claim whose
 * taker no longer runs: that replica died before its agent start took the
 * lease, so no takeover would recover the session. A conflicting insert
 * takes nothing, so each session goes to one replica. The sessions taken.
 */
export async function adoptOrphanedClaims(
  ctx: RepoContext,
  terms: LeaseTerms & { readonly heartbeatAfter: string },
  exceptProfile: string,
): Promise<string[]> {
  const { dialect } = ctx;
  const { replicaId, now, expiresAt, heartbeatAfter } = terms;
  const taker = dialect.metadataText('delivery_by', 'm');
  const result = await sql<{ session_id: string }>`
    INSERT INTO session_leases (session_id, replica_id, acquired_at, expires_at)
    SELECT DISTINCT m.task_session_id, ${replicaId}, ${now}, ${expiresAt}
    FROM task_session_messages m
    JOIN task_sessions s ON s.id = m.task_session_id
    WHERE ${dialect.metadataFlag('response_delivery_pending', 'm')}
      AND ${taker} IS NOT NULL
      AND s.agent_profile <> ${exceptProfile}
      AND NOT EXISTS (SELECT 1 FROM session_leases held WHERE held.session_id = m.task_session_id)
      AND ${noLiveReplica(ctx, taker, heartbeatAfter)}
    ON CONFLICT (session_id) DO NOTHING
    RETURNING session_id
  `.execute(ctx.db);
  return result.rows.map((row) => row.session_id).sort();
}

/** Gives up one session's lease, if this replica holds it. */
export async function releaseLease(
  ctx: RepoContext,
  sessionId: string,
  replicaId: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('session_leases')
    .where('session_id', '=', sessionId)
    .where('replica_id', '=', replicaId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Gives up every lease of the replica (shutdown); how many. */
export async function releaseLeasesOf(ctx: RepoContext, replicaId: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom('session_leases')
    .where('replica_id', '=', replicaId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Who may deliver a claim of the session: the live lease holder, and whether `askedOn` is live. */
export interface DeliveryOwners {
  readonly holder: string | undefined;
  readonly askedOnLive: boolean;
}

/** When owners are judged: leases live at `now`, replicas live with a heartbeat after `heartbeatAfter`. */
export interface OwnerTerms {
  readonly now: string;
  readonly heartbeatAfter: string;
}

/** One read for both. */
export async function deliveryOwners(
  ctx: RepoContext,
  input: OwnerTerms & { sessionId: string; askedOn: string | undefined },
): Promise<DeliveryOwners> {
  const columns = ownerColumns(ctx, input, sql`${input.sessionId}`, sql`${input.askedOn ?? ''}`);
  const { rows } = await sql<OwnerColumns>`
    SELECT ${columns.holder} AS holder, ${columns.asked_on_live} AS asked_on_live`.execute(ctx.db);
  return readOwners(rows[0]);
}

/** `deliveryOwners`' two columns as another statement reads them, named as there. */
export interface OwnerColumns {
  readonly holder: string | null;
  readonly asked_on_live: unknown;
}

/** The session's live lease holder, and whether the `askedOn` replica is live, as expressions. */
function ownerColumns(
  ctx: RepoContext,
  terms: OwnerTerms,
  session: RawBuilder<unknown>,
  askedOn: RawBuilder<unknown>,
) {
  return {
    holder: sql<string | null>`(SELECT l.replica_id FROM session_leases l
      WHERE l.session_id = ${session} AND ${leaseLive(ctx, 'l', terms.now)})`,
    asked_on_live: sql`EXISTS (SELECT 1 FROM replicas r
      WHERE r.id = ${askedOn} AND ${replicaLive(ctx, 'r', terms.heartbeatAfter)})`,
  };
}

/**
 * `deliveryOwners` for the session and the asking replica of each row of a
 * `task_session_messages` query (its `asked_on`), as two columns of that
 * query: the respond's identity read judges the route in the same statement.
 */
export function deliveryOwnerColumns(ctx: RepoContext, terms: OwnerTerms) {
  const row = 'task_session_messages';
  return ownerColumns(
    ctx,
    terms,
    sql`${sql.ref(`${row}.task_session_id`)}`,
    sql`${ctx.dialect.metadataText('asked_on', row)}`,
  );
}

/** The two columns as either engine answers them (a truth value is 1, '1' or true). */
export function readOwners(row: OwnerColumns | undefined): DeliveryOwners {
  const live = row?.asked_on_live;
  return {
    holder: row?.holder ?? undefined,
    askedOnLive: live === true || live === 1 || live === '1',
  };
}

/** The sessions whose lease the replica holds. */
export async function leasedSessions(ctx: RepoContext, replicaId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('session_leases')
    .select('session_id')
    .where('replica_id', '=', replicaId)
    .orderBy('session_id')
    .execute();
  return rows.map((row) => row.session_id);
}

export async function countLeases(ctx: RepoContext, replicaId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('session_leases')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('replica_id', '=', replicaId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Which sessions a recovery step acts on: all of them (one server on the
 * database), those no other live replica holds (a replica's start-up), the
 * named ones (a takeover), or those a replica holds (its shutdown).
 */
export type SessionScope =
  | { readonly kind: 'all' }
  | { readonly kind: 'not_held_elsewhere'; readonly replicaId: string; readonly now: string }
  | { readonly kind: 'sessions'; readonly ids: readonly string[] }
  | { readonly kind: 'held_by'; readonly replicaId: string };

export const ALL_SESSIONS: SessionScope = { kind: 'all' };

/** A predicate on the session ID column `column` (qualified, e.g. `t.task_session_id`). */
export function sessionInScope(
  ctx: RepoContext,
  scope: SessionScope,
  column: string,
): RawBuilder<SqlBool> {
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`1 = 1`;
    case 'sessions':
      return scope.ids.length === 0
        ? sql<SqlBool>`1 = 0`
        : sql<SqlBool>`${sql.ref(column)} IN (${sql.join(scope.ids)})`;
    case 'held_by':
      return sql<SqlBool>`EXISTS (
        SELECT 1 FROM session_leases mine
        WHERE mine.session_id = ${sql.ref(column)} AND mine.replica_id = ${scope.replicaId}
      )`;
    case 'not_held_elsewhere':
      return sql<SqlBool>`NOT EXISTS (
        SELECT 1 FROM session_leases held
        WHERE held.session_id = ${sql.ref(column)}
          AND held.replica_id <> ${scope.replicaId}
          AND ${leaseLive(ctx, 'held', scope.now)}
      )`;
    default: {
      const unknown: never = scope;
      throw new Error(`unknown session scope ${JSON.stringify(unknown)}`);
    }
  }
}
