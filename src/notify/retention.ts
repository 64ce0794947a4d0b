/**
 * Outbox retention: an item's notices are deleted once it no longer waits
 * and each of them settled (delivered or given up) longer ago than the
 * retention. What stays is what the rows are still read for:
 *
 * - an item still waiting keeps its rows: they say its channels were told,
 *   and the unique key they hold is what keeps it from being told twice;
 * - an item's rows go together, and only once none is owed, so an `asked`
 *   never outlives its `answered`;
 * - each channel's latest row (what the settings page shows as its last
 *   delivery) stays, with the rest of its item's.
 *
 * A prune runs inside a reconcile pass, after its writes, with the pass's
 * own reading of what waits: an item that pass saw stop waiting has had its
 * `answered` notices written in it, and those, owed, keep the item. It walks
 * the settled rows oldest first, a bounded batch at a time
 * (`idx_notification_outbox_settled`), each batch going on from where the
 * last stopped, so rows kept for now are not read again until the walk
 * comes round.
 */
import {
  deleteSettledItems,
  latestRowPerChannel,
  settledRowsBefore,
  timestampAtMs,
  type RepoContext,
  type SettledCursor,
  type SettledRow,
} from '../store/index.js';

export interface PruneRequest {
  /** Rows that settled longer ago than this may go. */
  readonly retentionMs: number;
  readonly batchRows: number;
  /** Where the previous batch stopped; `null` starts at the oldest. */
  readonly after: SettledCursor | null;
}

export interface PruneBatch {
  /** Rows settled before this may go. */
  readonly before: string;
  readonly rows: readonly SettledRow[];
  /** Where this batch stopped when it was full; `null` when it reached the newest. */
  readonly next: SettledCursor | null;
}

/** The next batch of rows old enough to go, should their items no longer wait. */
export async function readPruneBatch(
  store: RepoContext,
  request: PruneRequest,
): Promise<PruneBatch> {
  const before = timestampAtMs(store.clock.nowMs() - request.retentionMs);
  const rows = await settledRowsBefore(store, before, request.after, request.batchRows);
  const last = rows.at(-1);
  const full = last !== undefined && rows.length >= request.batchRows;
  return { before, rows, next: full ? { updatedAt: last.updatedAt, id: last.id } : null };
}

/**
 * Deletes the batch's items but those in `waiting` and each channel's
 * latest; returns how many rows went.
 */
export async function pruneBatch(
  store: RepoContext,
  batch: PruneBatch,
  waiting: ReadonlySet<string>,
): Promise<number> {
  if (batch.rows.length === 0) return 0;
  const latest = await latestRowPerChannel(
    store,
    batch.rows.map((row) => row.channelId),
  );
  const kept = new Set([...waiting, ...[...latest.values()].map((row) => row.occurrence)]);
  const items = batch.rows.map((row) => row.occurrence).filter((item) => !kept.has(item));
  return deleteSettledItems(store, items, batch.before);
}
