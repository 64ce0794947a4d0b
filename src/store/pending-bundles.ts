/**
 * The inbox read: every active bundle a scope can see, one keyset page at a
 * time. Active means what the claim's guards mean (DESIGN §5): a
 * clarification row still pending, in its session's current turn, in a
 * session that has not ended. A bundle's position is (its oldest row's
 * `created_at`, pending ID), so pages neither skip nor repeat a bundle while
 * others are added or answered between reads.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { CLARIFICATION_TYPE } from './clarification.js';
import type { RepoContext } from './context.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import { TERMINAL_SESSION_STATES } from './tables.js';
import { currentTurnIdOf } from './turns.js';

export const MAX_PENDING_PAGE = 200;

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

const ROW_SESSION = sql.ref<string>('task_session_messages.task_session_id');

function activeRow(ctx: RepoContext): Expression<SqlBool> {
  const terminal = sql.join(TERMINAL_SESSION_STATES.map((state) => sql.lit(state)));
  // The same three guards as the claim in clarification.ts, so the inbox never
  // lists a bundle the resolver would refuse as no longer active.
  return sql<SqlBool>`(
    COALESCE(${ctx.dialect.metadataText('status')}, 'pending') = 'pending'
    AND task_session_messages.turn_id = (${currentTurnIdOf(ctx, ROW_SESSION)})
    AND NOT EXISTS (
      SELECT 1 FROM task_sessions s WHERE s.id = ${ROW_SESSION} AND s.state IN (${terminal})
    )
  )`;
}

/** One page of active bundles visible to `scope`, oldest first, after `after`. */
export async function activeBundlePage(
  ctx: RepoContext,
  scope: PendingScope,
  options: { after?: PendingCursor | undefined; limit: number },
): Promise<ActiveBundlePage> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_PENDING_PAGE));
  const pendingId = ctx.dialect.pendingId();

  let active = ctx.db
    .selectFrom('task_session_messages')
    .select([
      pendingId.as('pending_id'),
      sql<string>`MIN(task_session_messages.created_at)`.as('bundle_created_at'),
    ])
    .where('task_session_messages.type', '=', CLARIFICATION_TYPE)
    .where(sql<SqlBool>`${pendingId} IS NOT NULL`)
    .where(activeRow(ctx))
    .groupBy(pendingId);
  if (scope.kind === 'session') {
    active = active.where('task_session_messages.task_session_id', '=', scope.sessionId);
  } else {
    active = active
      .innerJoin('tasks as vt', 'vt.id', 'task_session_messages.task_id')
      .innerJoin('workspace_members as vm', 'vm.workspace_id', 'vt.workspace_id')
      .where('vm.user_id', '=', scope.userId);
  }

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
  // One extra bundle tells whether another page exists without a count query.
  const heads = await page
    .orderBy('b.bundle_created_at')
    .orderBy('b.pending_id')
    .limit(limit + 1)
    .execute();
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
