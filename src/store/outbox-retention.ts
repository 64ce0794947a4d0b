/**
 * What outbox retention reads and deletes: settled rows by when they
 * settled, and an item's rows all at once. Which items may go (they no
 * longer wait; a channel's latest row stays) is `notify/retention.ts`'s to
 * say.
 */
import type { RepoContext } from './context.js';
import { chunks } from './chunks.js';

/**
 * Rows delivered or given up, by their last change (which, for a settled
 * row, is when it settled): what pruning walks, so it never reads rows still
 * owed.
 */
export const SETTLED_ROWS_INDEX = 'idx_notification_outbox_settled';
export const SETTLED_ROWS_INDEX_DDL =
  `CREATE INDEX IF NOT EXISTS ${SETTLED_ROWS_INDEX} ON notification_outbox (updated_at, id) ` +
  'WHERE delivered_at IS NOT NULL OR gave_up_at IS NOT NULL';

/** Where a walk of settled rows stopped: the last row it read. */
export interface SettledCursor {
  readonly updatedAt: string;
  readonly id: string;
}

export interface SettledRow {
  readonly id: string;
  readonly channelId: string;
  readonly occurrence: string;
  readonly updatedAt: string;
}

/** Up to `limit` rows that settled before `before`, oldest first, after `after`. */
export function settledRowsBefore(
  ctx: RepoContext,
  before: string,
  after: SettledCursor | null,
  limit: number,
): Promise<SettledRow[]> {
  return settledRowsBeforeQuery(ctx, before, after, limit).execute();
}

/** `settledRowsBefore` as a query, for its plan. */
export function settledRowsBeforeQuery(
  ctx: RepoContext,
  before: string,
  after: SettledCursor | null,
  limit: number,
) {
  let query = ctx.db
    .selectFrom('notification_outbox')
    .select(['id', 'channel_id as channelId', 'occurrence', 'updated_at as updatedAt'])
    // Spelled as the index's predicate, so both engines read the index.
    .where((eb) => eb.or([eb('delivered_at', 'is not', null), eb('gave_up_at', 'is not', null)]))
    .where('updated_at', '<', before);
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.updatedAt, after.id)),
    );
  }
  return query.orderBy('updated_at').orderBy('id').limit(limit);
}

/**
 * Deletes every row of these items, only of an item none of whose rows is
 * still owed or settled at or after `before`. An item's notices go together:
 * an `asked` left without its `answered` would read as owed one again. Which
 * items have stopped waiting is the caller's to know. Returns how many rows
 * went.
 */
export async function deleteSettledItems(
  ctx: RepoContext,
  occurrences: readonly string[],
  before: string,
): Promise<number> {
  let deleted = 0;
  for (const part of chunks([...new Set(occurrences)])) {
    const result = await ctx.db
      .deleteFrom('notification_outbox')
      .where('occurrence', 'in', part)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('notification_outbox as k')
              .select('k.id')
              .whereRef('k.occurrence', '=', 'notification_outbox.occurrence')
              .where((inner) =>
                inner.or([
                  inner.and([
                    inner('k.delivered_at', 'is', null),
                    inner('k.gave_up_at', 'is', null),
                  ]),
                  inner('k.updated_at', '>=', before),
                ]),
              ),
          ),
        ),
      )
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
