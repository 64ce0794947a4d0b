/**
 * A replica's liveness on PostgreSQL: one dedicated connection holds a
 * two-key advisory lock for the replica's whole life. PostgreSQL frees it
 * when the connection ends, so a replica killed with SIGKILL reads dead to
 * the others at once (`Dialect.replicaLockHeld`), not only once its leases
 * expire. SQLite needs none: the data-directory lock already allows one server.
 */
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { REPLICA_LOCK_CLASS } from './dialect.js';
import { redactUrl, type DatabaseTarget } from './open.js';
import { pgDedicatedConnectionConfig } from './pg-connection.js';

export interface ReplicaLock {
  /** The second key of the lock, stored as `replicas.lock_key`; null on SQLite. */
  readonly key: number | null;
  /** Called once if the connection holding the lock ends while the replica runs. */
  onLost(listener: (error: unknown) => void): void;
  release(): Promise<void>;
}

/** Keys tried before giving up; each is free unless another replica drew it. */
const KEY_ATTEMPTS = 8;

export async function holdReplicaLock(target: DatabaseTarget): Promise<ReplicaLock> {
  if (target.driver === 'sqlite') {
    return { key: null, onLost: () => undefined, release: () => Promise.resolve() };
  }
  const client = new pg.Client(pgDedicatedConnectionConfig(target.url, target.statementReplyMaxMs));
  let released = false;
  const listeners: ((error: unknown) => void)[] = [];
  const lost = (error: unknown) => {
    if (released) return;
    released = true;
    for (const listener of listeners) listener(error);
  };
  client.on('error', lost);
  client.on('end', () => {
    lost(new Error('the replica lock connection ended'));
  });
  try {
    await client.connect();
    for (let attempt = 0; attempt < KEY_ATTEMPTS; attempt++) {
      const key = randomInt(1, 2 ** 31 - 1);
      const result = await client.query<{ held: boolean }>(
        'SELECT pg_try_advisory_lock($1::int, $2::int) AS held',
        [REPLICA_LOCK_CLASS, key],
      );
      if (result.rows[0]?.held === true) {
        return {
          key,
          onLost: (listener) => listeners.push(listener),
          async release() {
            released = true;
            await client.end();
          },
        };
      }
    }
    throw new Error(`no free key in ${KEY_ATTEMPTS} attempts`);
  } catch (error) {
    released = true;
    // A statement still waiting for its reply makes this drop the connection at once.
    await client.end().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot take the replica lock at ${redactUrl(target.url)}: ${reason}`, {
      cause: error,
    });
  }
}
