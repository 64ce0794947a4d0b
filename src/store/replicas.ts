/**
 * The `replicas` table (issue 16): every server on the database registers
 * here, heartbeats, and marks itself stopped on a clean shutdown. A replica
 * is live while it has not stopped, its heartbeat is within the lease and
 * (PostgreSQL) its advisory lock is held; a second server under a live
 * replica's ID is refused with one conditional statement.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { RepoContext } from './context.js';
import type { ReplicasTable } from './tables.js';

export type ReplicaRecord = ReplicasTable;

/**
 * Whether the replica row aliased `alias` runs: it has not stopped and
 * (PostgreSQL) still holds its lock, however late its heartbeat.
 */
export function replicaRuns(ctx: RepoContext, alias: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${alias}.stopped_at`)} IS NULL
    AND ${ctx.dialect.replicaLockHeld(`${alias}.lock_key`)})`;
}

/** Whether the replica row aliased `alias` runs with a heartbeat after `heartbeatAfter`. */
export function replicaLive(
  ctx: RepoContext,
  alias: string,
  heartbeatAfter: string,
): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${replicaRuns(ctx, alias)}
    AND ${sql.ref(`${alias}.heartbeat_at`)} > ${heartbeatAfter})`;
}

/**
 * Whether no live replica (as `replicaLive` judges) has the ID `replicaId`:
 * a claim's taker that is gone, or never was.
 */
export function noLiveReplica(
  ctx: RepoContext,
  replicaId: RawBuilder<string | null>,
  heartbeatAfter: string,
): RawBuilder<SqlBool> {
  return sql<SqlBool>`NOT EXISTS (
    SELECT 1 FROM replicas r WHERE r.id = ${replicaId} AND ${replicaLive(ctx, 'r', heartbeatAfter)}
  )`;
}

/**
 * Whether the holder of the lease aliased `leaseAlias` still runs. Its
 * heartbeat is the lease's own expiry, checked by the caller.
 */
export function leaseHolderRuns(ctx: RepoContext, leaseAlias: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM replicas holder
    WHERE holder.id = ${sql.ref(`${leaseAlias}.replica_id`)} AND ${replicaRuns(ctx, 'holder')}
  )`;
}

export type Registration =
  { readonly ok: true } | { readonly ok: false; readonly live: ReplicaRecord };

/**
 * Registers `id` unless a live replica holds it; a dead or stopped one of the
 * same ID (a restart) is taken over in the same statement.
 */
export async function registerReplica(
  ctx: RepoContext,
  input: { id: string; lockKey: number | null; now: string; heartbeatAfter: string },
): Promise<Registration> {
  const { id, lockKey, now, heartbeatAfter } = input;
  const result = await sql<{ id: string }>`
    INSERT INTO replicas (id, lock_key, started_at, heartbeat_at, stopped_at)
    VALUES (${id}, ${lockKey}, ${now}, ${now}, NULL)
    ON CONFLICT (id) DO UPDATE SET
      lock_key = excluded.lock_key,
      started_at = excluded.started_at,
      heartbeat_at = excluded.heartbeat_at,
      stopped_at = NULL
    WHERE NOT ${replicaLive(ctx, 'replicas', heartbeatAfter)}
    RETURNING id
  `.execute(ctx.db);
  if (result.rows.length > 0) return { ok: true };
  const live = await ctx.db
    .selectFrom('replicas')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { ok: false, live };
}

/**
 * Records a heartbeat of the replica registered under `id` with `lockKey`
 * (null on SQLite); false when the row is gone, marked stopped, or another
 * process registered the ID since (a new lock key): this process no longer
 * is that replica.
 */
export async function heartbeatReplica(
  ctx: RepoContext,
  id: string,
  lockKey: number | null,
  now: string,
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('replicas')
    .set({ heartbeat_at: now })
    .where('id', '=', id)
    .where('lock_key', lockKey === null ? 'is' : '=', lockKey)
    .where('stopped_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether the row of `id` is still the one registered with `lockKey` and not stopped. */
export async function replicaRegisteredAs(
  ctx: RepoContext,
  id: string,
  lockKey: number | null,
): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('replicas')
    .select('id')
    .where('id', '=', id)
    .where('lock_key', lockKey === null ? 'is' : '=', lockKey)
    .where('stopped_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks the replica registered under `id` with `lockKey` stopped; another registration of the ID is left alone. */
export async function markReplicaStopped(
  ctx: RepoContext,
  id: string,
  lockKey: number | null,
  now: string,
): Promise<void> {
  await ctx.db
    .updateTable('replicas')
    .set({ stopped_at: now })
    .where('id', '=', id)
    .where('lock_key', lockKey === null ? 'is' : '=', lockKey)
    .execute();
}

/**
 * For a server that knows it is alone on the database (SQLite's data-directory
 * lock): every other replica stopped, whatever it left unfinished, and their
 * leases are void.
 */
export async function retireOtherReplicas(
  ctx: RepoContext,
  id: string,
  now: string,
): Promise<void> {
  await ctx.db
    .updateTable('replicas')
    .set({ stopped_at: now })
    .where('id', '<>', id)
    .where('stopped_at', 'is', null)
    .execute();
  await ctx.db.deleteFrom('session_leases').where('replica_id', '<>', id).execute();
}

/** Deletes replicas silent since `before` that hold no lease (each start of a generated ID adds one). */
export async function pruneReplicas(ctx: RepoContext, before: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom('replicas')
    .where('heartbeat_at', '<', before)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('session_leases')
            .select('session_leases.session_id')
            .whereRef('session_leases.replica_id', '=', 'replicas.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function getReplica(ctx: RepoContext, id: string): Promise<ReplicaRecord | undefined> {
  return ctx.db.selectFrom('replicas').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The replicas marked stopped, with when: a new mark is a clean stop since the last look. */
export function stoppedReplicas(
  ctx: RepoContext,
): Promise<{ readonly id: string; readonly stopped_at: string }[]> {
  return ctx.db
    .selectFrom('replicas')
    .select(['id', 'stopped_at'])
    .where('stopped_at', 'is not', null)
    .$narrowType<{ stopped_at: string }>()
    .execute();
}

/** The replicas live now: running, with a heartbeat after `heartbeatAfter`. */
export async function liveReplicaIds(ctx: RepoContext, heartbeatAfter: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('replicas as r')
    .select('r.id')
    .where(replicaLive(ctx, 'r', heartbeatAfter))
    .execute();
  return rows.map((row) => row.id);
}
