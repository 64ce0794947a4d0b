/**
 * A replica's liveness on PostgreSQL: one dedicated connection holds a
 * two-key advisory lock for the replica's whole life. PostgreSQL frees it
 * when the connection ends, so a replica killed with SIGKILL reads dead to
 * the others at once (`Dialect.replicaLockHeld`), not only once its leases
 * expire. A replica whose connection ended while it runs (a PostgreSQL
 * restart, a terminated backend) takes the same key again on a new one
 * (`retake`); the replica decides when, and what a refusal means. SQLite
 * needs none: the data-directory lock already allows one server.
 */
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { REPLICA_LOCK_CLASS } from './dialect.js';
import { storageFaultReason } from './faults.js';
import { redactUrl, StoreOpenError, type DatabaseTarget } from './open.js';
import { boundSession, pgDedicatedConnectionConfig } from './pg-connection.js';

export interface ReplicaLock {
  /** The second key of the lock, stored as `replicas.lock_key`; null on SQLite. */
  readonly key: number | null;
  /** Called each time the connection holding the lock ends while the replica runs. */
  onLost(listener: (error: unknown) => void): void;
  /**
   * Takes the same key again on a new connection, once: true when held
   * again, false when another connection holds it (a process started under
   * this replica's ID meanwhile, or the old connection's backend not yet
   * gone). Throws when the database cannot be reached.
   */
  retake(): Promise<boolean>;
  release(): Promise<void>;
}

/** Keys tried before giving up; each is free unless another replica drew it. */
const KEY_ATTEMPTS = 8;

export async function holdReplicaLock(target: DatabaseTarget): Promise<ReplicaLock> {
  if (target.driver === 'sqlite') {
    return {
      key: null,
      onLost: () => undefined,
      retake: () => Promise.resolve(true),
      release: () => Promise.resolve(),
    };
  }
  const connect = () =>
    new pg.Client(pgDedicatedConnectionConfig(target.url, target.statementReplyMaxMs));
  const tryKey = async (client: pg.Client, key: number) => {
    const result = await client.query<{ held: boolean }>(
      'SELECT pg_try_advisory_lock($1::int, $2::int) AS held',
      [REPLICA_LOCK_CLASS, key],
    );
    return result.rows[0]?.held === true;
  };
  let released = false;
  // A function, so a check after an await reads the flag as it is then.
  const isReleased = () => released;
  /** The connection holding the lock now; none while it is lost. */
  let current: pg.Client | undefined;
  const listeners: ((error: unknown) => void)[] = [];
  const hold = (client: pg.Client) => {
    current = client;
    const lost = (error: unknown) => {
      if (released || current !== client) return;
      current = undefined;
      // An end seen only here (the socket failed) ends the backend too, freeing the key for `retake`.
      client.end().catch(() => undefined);
      for (const listener of listeners) listener(error);
    };
    client.on('error', lost);
    client.on('end', () => {
      lost(new Error('the replica lock connection ended'));
    });
  };
  const first = connect();
  try {
    // Before the connection is held: a failure here is the start's, not a loss.
    first.on('error', () => undefined);
    await first.connect();
    await boundSession(first);
    for (let attempt = 0; attempt < KEY_ATTEMPTS; attempt++) {
      const key = randomInt(1, 2 ** 31 - 1);
      if (await tryKey(first, key)) {
        hold(first);
        return {
          key,
          onLost: (listener) => listeners.push(listener),
          async retake() {
            if (released) throw new Error('the replica lock was released');
            if (current) return true;
            const client = connect();
            client.on('error', () => undefined);
            try {
              await client.connect();
              await boundSession(client);
              if (!(await tryKey(client, key)) || isReleased()) {
                await client.end();
                return false;
              }
            } catch (error) {
              await client.end().catch(() => undefined);
              throw error;
            }
            hold(client);
            return true;
          },
          async release() {
            released = true;
            const holding = current;
            current = undefined;
            await holding?.end();
          },
        };
      }
    }
    throw new Error(`no free key in ${KEY_ATTEMPTS} attempts`);
  } catch (error) {
    released = true;
    // A statement still waiting for its reply makes this drop the connection at once.
    await first.end().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    const message = `cannot take the replica lock at ${redactUrl(target.url)}: ${reason}`;
    // The database refused or lost the connection (too many connections, say): the
    // operator's to fix, and said as the pool's own refusal is.
    if (storageFaultReason(error) !== undefined) {
      throw new StoreOpenError('database_unreachable', message, error);
    }
    throw new Error(message, { cause: error });
  }
}
