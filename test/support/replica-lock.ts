/**
 * Another connection taking a replica's lock (issue 16) on a real
 * PostgreSQL: the replica's lock backend is terminated while that connection
 * already waits for the key, so it is granted the moment the backend is gone,
 * before the replica's first retry. The replica cannot take its lock again
 * until the returned client ends.
 */
import pg from 'pg';
import { REPLICA_LOCK_CLASS } from '../../src/store/dialect.js';
import { eventually } from './clarification-harness.js';

export async function takeReplicaLock(url: string, lockKey: number): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: url });
  const holder = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await holder.connect();
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND classid = $1::bigint::oid AND objid = $2::bigint::oid`,
      [REPLICA_LOCK_CLASS, lockKey],
    );
    const pid = rows[0]?.pid;
    if (pid === undefined) throw new Error(`no backend holds replica lock ${lockKey}`);
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]?.pid;
    const taken = holder.query('SELECT pg_advisory_lock($1::int, $2::int)', [
      REPLICA_LOCK_CLASS,
      lockKey,
    ]);
    await eventually(async () => {
      const waiting = await admin.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid = $1`,
        [holderPid],
      );
      return waiting.rowCount === 1;
    });
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await taken;
    return holder;
  } catch (error) {
    await holder.end().catch(() => undefined);
    throw error;
  } finally {
    await admin.end();
  }
}
