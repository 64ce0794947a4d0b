/**
 * The event log (issue 16): session events as committed on one replica, kept
 * a short while so every other replica's relay can publish them to its own
 * subscribers. PostgreSQL only: SQLite has one server and writes no log.
 *
 * Invariants: an append is one statement that logs the events and sends the
 * wake, inside the caller's transaction (a rollback leaves neither). Readers
 * page in `(txid, id)` order and see only rows of transactions older than
 * every transaction still running, so a row that commits late with a lower
 * id is never skipped past: all rows behind the cursor are final.
 */
import { sql } from 'kysely';
import type { RepoContext } from './context.js';
import { WAKE_CHANNEL } from './wake.js';

/** What a logged event says of itself; the rest of the event is kept whole as JSON. */
export interface LoggableEvent {
  readonly session_id: string;
  readonly revision: number;
}

/** Where a reader stands: past every row up to and including this one. */
export interface EventLogCursor {
  readonly txid: string;
  readonly id: string;
}

export interface LoggedEvent {
  readonly cursor: EventLogCursor;
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
  const { rows } = await sql<{ txid: string }>`
    SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS txid`.execute(ctx.db);
  return { txid: rows[0]?.txid ?? '0', id: '0' };
}

/**
 * The rows of up to `limit` past `after` not appended by `exclude`, in order,
 * where the reader stands after them (past `exclude`'s rows too), how many
 * rows were read, and whether rows past them are `held`: logged by a
 * transaction newer than one still running, so not yet final. A held row
 * was already announced by its wake; the reader must come back for it.
 */
export async function readEventLog(
  ctx: RepoContext,
  after: EventLogCursor,
  exclude: string,
  limit: number,
): Promise<{ events: LoggedEvent[]; cursor: EventLogCursor; rows: number; held: boolean }> {
  // Rows come in txid order, so the final ones are a prefix; the rest are read
  // without their event, only to learn that they wait. The order names the
  // table's columns: a bare `txid, id` would be the text output columns,
  // ordered as strings ('10' before '9') and by no index.
  const { rows } = await sql<{
    txid: string;
    id: string;
    origin: string;
    event: string | null;
  }>`
    SELECT l.txid::text AS txid, l.id::text AS id, l.origin,
           CASE WHEN l.txid < horizon.xmin THEN l.event END AS event
      FROM session_events AS l,
           (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) AS horizon
     WHERE (l.txid, l.id) > (${after.txid}::xid8, ${after.id}::bigint)
     ORDER BY l.txid, l.id
     LIMIT ${limit}`.execute(ctx.db);
  const final = rows.filter((row): row is typeof row & { event: string } => row.event !== null);
  const last = final.at(-1);
  return {
    events: final
      .filter((row) => row.origin !== exclude)
      .map((row) => ({
        cursor: { txid: row.txid, id: row.id },
        origin: row.origin,
        event: JSON.parse(row.event) as unknown,
      })),
    cursor: last ? { txid: last.txid, id: last.id } : after,
    rows: final.length,
    held: final.length < rows.length,
  };
}

/** Deletes rows created before `before` (a row version); returns how many. */
export async function pruneEventLog(ctx: RepoContext, before: string): Promise<number> {
  const result = await sql`DELETE FROM session_events WHERE created_at < ${before}`.execute(ctx.db);
  return Number(result.numAffectedRows ?? 0);
}
