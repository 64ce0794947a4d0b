/**
 * Several replicas (issue 16): asks whose live wait ran on a replica that no
 * longer runs. An external agent's session is held by no lease, so no
 * takeover's recovery detaches its bundles; a replica's poll finds them here
 * and detaches them as a wait that ends would. The poll's read walks the
 * attached-asks index (PostgreSQL), as large as the live waits of every
 * replica, and judges each replica's liveness once per statement.
 */
import { sql, type SqlBool } from 'kysely';
import { inCurrentTurn, sessionLive } from './clarification-guards.js';
import { updatePendingRows } from './clarification.js';
import type { RepoContext } from './context.js';
import { jsonValue } from './dialect.js';
import type { MessageRecord } from './messages.js';
import { noLiveReplica, replicaLive } from './replicas.js';

/** An active bundle still marked attached to a wait on a replica that is gone. */
export interface OrphanedAsk {
  readonly sessionId: string;
  readonly pendingId: string;
  /** The replica its wait ran on. */
  readonly askedOn: string;
}

/**
 * The attached bundles, in live sessions of `agentProfile` (an external
 * agent's), whose `asked_on` replica is not live as `replicaLive` judges it
 * with `heartbeatAfter`. Exported so a plan test explains the real text.
 */
export function orphanedAsksQuery(ctx: RepoContext, heartbeatAfter: string, agentProfile: string) {
  const { dialect } = ctx;
  const askedOn = dialect.metadataText('asked_on', 'task_session_messages');
  // Uncorrelated: the live replicas are read once, not once per row.
  const live = sql`SELECT r.id FROM replicas r WHERE ${replicaLive(ctx, 'r', heartbeatAfter)}`;
  return ctx.db
    .selectFrom('task_session_messages')
    .select(['task_session_id', dialect.pendingId().as('pending_id'), askedOn.as('asked_on')])
    .distinct()
    .where(dialect.attachedAskRow())
    .where(sql<SqlBool>`${askedOn} NOT IN (${live})`)
    .where(inCurrentTurn(ctx))
    .where(sessionLive())
    .where(
      'task_session_id',
      'in',
      ctx.db.selectFrom('task_sessions').select('id').where('agent_profile', '=', agentProfile),
    );
}

export async function orphanedAsks(
  ctx: RepoContext,
  heartbeatAfter: string,
  agentProfile: string,
): Promise<OrphanedAsk[]> {
  const rows = await orphanedAsksQuery(ctx, heartbeatAfter, agentProfile).execute();
  return rows.flatMap((row) =>
    row.pending_id !== null && row.asked_on !== null
      ? [{ sessionId: row.task_session_id, pendingId: row.pending_id, askedOn: row.asked_on }]
      : [],
  );
}

/**
 * Marks the live wait of one bundle's rows as ended, as `detachBundleRows`
 * does, while they are still attached and the replica they name is still not
 * live (judged again here, in the write): an agent that asked again on a live
 * replica meanwhile keeps its wait. Repeats change nothing.
 */
export function detachOrphanedAsk(
  ctx: RepoContext,
  pendingId: string,
  heartbeatAfter: string,
): Promise<MessageRecord[]> {
  const askedOn = ctx.dialect.metadataText('asked_on', 'task_session_messages');
  return updatePendingRows(ctx, { pendingId }, [['agent_disconnected', jsonValue(true)]], {
    liveSession: true,
    stillAttached: true,
    also: sql<SqlBool>`${askedOn} IS NOT NULL AND ${noLiveReplica(ctx, askedOn, heartbeatAfter)}`,
  });
}
