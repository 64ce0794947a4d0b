/** Races held at a row lock on PostgreSQL: a holder's open transaction, let go once the racers wait. */
import type pg from 'pg';
import { eventually } from './clarification-harness.js';

/**
 * Commits `holder`'s transaction (which holds the row the racers lock) once
 * every one of `racers` waits on a lock in this database, or one of them has
 * ended: both are then provably under way at once.
 */
export async function releaseWhenAllWait(
  holder: pg.Client,
  racers: readonly Promise<unknown>[],
): Promise<void> {
  let settled = false;
  for (const racer of racers) {
    void racer.finally(() => {
      settled = true;
    });
  }
  await eventually(async () => {
    if (settled) return true;
    // Within its transaction the holder would read one snapshot of the activity again and again.
    await holder.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await holder.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return rows[0]?.waiting === racers.length;
  }, 10_000);
  await holder.query('COMMIT');
}
