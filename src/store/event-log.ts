/**
 * The event log (issue 16): session events as committed on one replica, kept
 * a short while so every other replica's relay can publish them to its own
 * subscribers. PostgreSQL only: SQLite has one server and writes no log.
 *
 * Invariants: an append is one statement that logs the events and sends the
 * wake, inside the caller's transaction (a rollback leaves neither). A
 * reader's cursor is the snapshot it last read the log at: it has read
 * exactly the rows visible in that snapshot, so its next read takes the rows
 * visible now and not then (by their transaction's `txid`, in `(txid, id)`
 * order). A row that commits late with a lower txid is therefore never
 * skipped, no row is read twice, and a transaction still running, here or
 * anywhere on the server, holds back nothing but its own rows (they become
 * visible at its commit, which sends their wake).
 */
import { sql } from 'kysely';
import type { RepoContext } from './context.js';
import { WAKE_CHANNEL } from './wake.js';

/** What a logged event says of itself; the rest of the event is kept whole as JSON. */
export interface LoggableEvent {
  readonly session_id: string;
  readonly revision: number;
}

/**
 * Where a reader stands; only this module looks inside. `seen` is the
 * snapshot (`pg_snapshot` text) whose rows it has all read and no others,
 * except while it pages through the rows of a newer snapshot: then
 * `reading` is that snapshot and the last row read of it.
 */
export interface EventLogCursor {
  readonly seen: string;
  readonly reading?: { readonly snapshot: string; readonly txid: string; readonly id: string };
}

export interface LoggedEvent {
  readonly origin: string;
  /** The event as it was appended (JSON parsed back). */
  readonly event: unknown;
}

/**
 * Logs `events` in order and sends `wake` with the same commit: one statement
 * (a data-modifying CTE runs to completion whether the outer query reads it).
 */
export async function appendSessionEvents(
  ctx: RepoContext,
  origin: string,
  events: readonly LoggableEvent[],
  wake: string,
): Promise<void> {
  if (events.length === 0) return;
  await sql`
    WITH logged AS (
      INSERT INTO session_events (session_id, revision, origin, event, created_at)
      SELECT e.value ->> 'session_id', (e.value ->> 'revision')::integer, ${origin},
             e.value::text, ${ctx.clock.timestamp()}
        FROM json_array_elements(${JSON.stringify(events)}::json) WITH ORDINALITY AS e (value, n)
       ORDER BY e.n
      RETURNING 1
    )
    SELECT pg_notify(${WAKE_CHANNEL}, ${wake})`.execute(ctx.db);
}

/** Where a reader that starts now begins: rows of transactions still running or to come. */
export async function eventLogStart(ctx: RepoContext): Promise<EventLogCursor> {
  const { rows } = await sql<{ snapshot: string }>`
    SELECT pg_current_snapshot()::text AS snapshot`.execute(ctx.db);
  const snapshot = rows[0]?.snapshot;
  if (snapshot === undefined) throw new Error('pg_current_snapshot() returned no row');
  return { seen: snapshot };
}

/**
 * The rows of up to `limit` past `after` not appended by `exclude`, in
 * order, where the reader stands after them (past `exclude`'s rows too), and
 * whether there may be `more`: the page was full, so read again at once.
 * One statement, on every wake of every replica, so it must stay cheap.
 */
export async function readEventLog(
  ctx: RepoContext,
  after: EventLogCursor,
  exclude: string,
  limit: number,
): Promise<{ events: LoggedEvent[]; cursor: EventLogCursor; more: boolean }> {
  const { seen, reading } = after;
  // Paging: only rows of the snapshot being read, past the last one read.
  const inPage = reading
    ? sql`AND txid < pg_snapshot_xmax(${reading.snapshot}::pg_snapshot)
          AND pg_visible_in_snapshot(txid, ${reading.snapshot}::pg_snapshot)
          AND (txid, id) > (${reading.txid}::xid8, ${reading.id}::bigint)`
    : sql``;
  // A row not visible in `seen` is of a transaction running then (`xip`) or
  // begun after it (`>= xmax`). Each arm is an ordered range of
  // idx_session_events_order cut at `limit`, merged in order: the cost is the
  // rows returned, however old the oldest transaction still running.
  // `pg_current_snapshot()` is this statement's own: the rows read are
  // exactly those it sees. Order by the table's columns, not the text ones.
  const { rows } = await sql<{
    txid: string;
    id: string;
    origin: string;
    event: string | null;
    snapshot: string;
  }>`
    SELECT l.txid::text AS txid, l.id::text AS id, l.origin,
           CASE WHEN l.origin <> ${exclude} THEN l.event END AS event,
           pg_current_snapshot()::text AS snapshot
      FROM ((SELECT txid, id, origin, event FROM session_events
              WHERE txid = ANY (ARRAY(SELECT pg_snapshot_xip(${seen}::pg_snapshot))) ${inPage}
              ORDER BY txid, id LIMIT ${limit})
            UNION ALL
            (SELECT txid, id, origin, event FROM session_events
              WHERE txid >= pg_snapshot_xmax(${seen}::pg_snapshot) ${inPage}
              ORDER BY txid, id LIMIT ${limit})) AS l
     ORDER BY l.txid, l.id
     LIMIT ${limit}`.execute(ctx.db);
  const events = rows.flatMap((row) =>
    row.event === null ? [] : [{ origin: row.origin, event: JSON.parse(row.event) as unknown }],
  );
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) {
    // Nothing new: what is visible now was visible in `seen` (or `reading`).
    return { events, cursor: reading ? { seen: reading.snapshot } : after, more: false };
  }
  const snapshot = reading?.snapshot ?? first.snapshot;
  if (rows.length < limit) return { events, cursor: { seen: snapshot }, more: false };
  return {
    events,
    cursor: { seen, reading: { snapshot, txid: last.txid, id: last.id } },
    more: true,
  };
}

/** Deletes rows created before `before` (a row version); returns how many. */
export async function pruneEventLog(ctx: RepoContext, before: string): Promise<number> {
  const result = await sql`DELETE FROM session_events WHERE created_at < ${before}`.execute(ctx.db);
  return Number(result.numAffectedRows ?? 0);
}
