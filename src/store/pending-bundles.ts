/**
 * The inbox read: every active bundle a scope can see, one keyset page at a
 * time. Active means what the claim's guards mean (DESIGN §5): a
 * clarification row still pending, in its session's current turn, in a
 * session that has not ended. A bundle's position is (its oldest row's
 * `created_at`, pending ID), so pages neither skip nor repeat a bundle while
 * others are added or answered between reads.
 */
import { sql, type SqlBool } from 'kysely';
import type { RepoContext } from './context.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import { TERMINAL_SESSION_STATES } from './tables.js';
import { MAX_PENDING_PAGE } from '../wire/index.js';
import { currentTurnIdOf } from './turns.js';

export { MAX_PENDING_PAGE };

/** Who is listing: a user sees their workspaces' sessions, an agent its own session. */
export type PendingScope =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'session'; readonly sessionId: string };

/** Where a page ended: the last bundle's position. */
export interface PendingCursor {
  createdAt: string;
  pendingId: string;
}

export interface ActiveBundleRows {
  pendingId: string;
  /** The bundle's oldest row's `created_at`: its place in the inbox. */
  createdAt: string;
  /** Every row of the bundle, in bundle order (`created_at`, `id`). */
  rows: MessageRecord[];
}

export interface ActiveBundlePage {
  bundles: ActiveBundleRows[];
  /** Where the next page starts; `null` on the last page. */
  next: PendingCursor | null;
}

/**
 * The live sessions `scope` can see, each with its current turn. Visibility
 * and liveness come first so that everything after is bounded by what the
 * caller can see; the current-turn rule runs once per session, not per row.
 */
function visibleCurrentTurns(ctx: RepoContext, scope: PendingScope) {
  const terminal = TERMINAL_SESSION_STATES.map((state) => sql.lit(state));
  const sessions =
    scope.kind === 'session'
      ? ctx.db.selectFrom('task_sessions as s').where('s.id', '=', scope.sessionId)
      : ctx.db
          .selectFrom('workspace_members as vm')
          .innerJoin('tasks as vt', 'vt.workspace_id', 'vm.workspace_id')
          .innerJoin('task_sessions as s', 's.task_id', 'vt.id')
          .where('vm.user_id', '=', scope.userId);
  return sessions
    .where(sql<SqlBool>`s.state NOT IN (${sql.join(terminal)})`)
    .select(['s.id as session_id', currentTurnIdOf(ctx, sql.ref<string>('s.id')).as('turn_id')]);
}

/**
 * The positions of up to `limit` active bundles after `after`; exported so
 * plan tests explain the real text.
 */
export function activeBundleHeadsQuery(
  ctx: RepoContext,
  scope: PendingScope,
  options: { after?: PendingCursor | undefined; limit: number },
) {
  const pendingId = ctx.dialect.pendingId();
  // The same guards as the claim in clarification.ts (pending row, current
  // turn, live session), so the inbox never lists a bundle the resolver would
  // refuse as no longer active. The row guards are the partial index's
  // predicate, so each session's active rows are one seek by its current turn.
  // Materialized: inlined, PostgreSQL put the current-turn subquery into a
  // hash key and ran it twice per session.
  const active = ctx.db
    .with(
      (cte) => cte('c').materialized(),
      () => visibleCurrentTurns(ctx, scope),
    )
    .selectFrom('c')
    .innerJoin('task_session_messages', (join) =>
      join
        .onRef('task_session_messages.turn_id', '=', 'c.turn_id')
        .onRef('task_session_messages.task_session_id', '=', 'c.session_id'),
    )
    .where(ctx.dialect.pendingClarificationRow())
    .select([
      pendingId.as('pending_id'),
      sql<string>`MIN(task_session_messages.created_at)`.as('bundle_created_at'),
    ])
    .groupBy(pendingId);

  let page = ctx.db.selectFrom(active.as('b')).select(['b.pending_id', 'b.bundle_created_at']);
  const after = options.after;
  if (after) {
    page = page.where((eb) =>
      eb.or([
        eb('b.bundle_created_at', '>', after.createdAt),
        eb.and([
          eb('b.bundle_created_at', '=', after.createdAt),
          eb('b.pending_id', '>', after.pendingId),
        ]),
      ]),
    );
  }
  return page.orderBy('b.bundle_created_at').orderBy('b.pending_id').limit(options.limit);
}

/** One page of active bundles visible to `scope`, oldest first, after `after`. */
export async function activeBundlePage(
  ctx: RepoContext,
  scope: PendingScope,
  options: { after?: PendingCursor | undefined; limit: number },
): Promise<ActiveBundlePage> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_PENDING_PAGE));
  const pendingId = ctx.dialect.pendingId();
  // One extra bundle tells whether another page exists without a count query.
  const heads = await activeBundleHeadsQuery(ctx, scope, {
    after: options.after,
    limit: limit + 1,
  }).execute();
  const shown = heads
    .slice(0, limit)
    .flatMap((head) =>
      head.pending_id === null
        ? []
        : [{ pendingId: head.pending_id, createdAt: head.bundle_created_at }],
    );
  const last = shown.at(-1);
  const next =
    heads.length > limit && last ? { createdAt: last.createdAt, pendingId: last.pendingId } : null;
  if (shown.length === 0) return { bundles: [], next };

  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where(
      pendingId,
      'in',
      shown.map((head) => head.pendingId),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const byBundle = new Map<string, MessageRecord[]>(shown.map((head) => [head.pendingId, []]));
  for (const row of rows) {
    const record = toMessageRecord(row);
    const id = record.metadata.pending_id;
    if (typeof id === 'string') byBundle.get(id)?.push(record);
  }
  return {
    bundles: shown.map((head) => ({ ...head, rows: byBundle.get(head.pendingId) ?? [] })),
    next,
  };
}
