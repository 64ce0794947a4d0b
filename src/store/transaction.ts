/**
 * How `store.transaction` runs on each engine: begin (waiting for the write
 * lock without blocking the event loop, within the caller's bound), run the
 * work on that one connection, commit; on any failure roll back and report
 * the failure that got there, never one the rollback raised after it.
 */
import { sql, type Kysely } from 'kysely';
import { postgresBegin } from './dialect.js';
import { asStorageFault } from './faults.js';
import type { LockWaitBound, SqliteLockWaitingDriver } from './sqlite-driver.js';
import type { Database } from './tables.js';

/** How long a transaction may wait to begin, and the bound on its statements. */
export interface TransactionOptions extends LockWaitBound {
  /**
   * Takes this session's writers' lock as the transaction begins (the
   * dialect's `lockSession`), on PostgreSQL in the same round trip as `BEGIN`.
   */
  readonly lockSession?: string;
}

/** An engine's begin, commit and rollback on an acquired connection. */
export interface TransactionControl {
  /** Begins, bounds and locks as `options` say; on failure no transaction is left open. */
  begin(conn: Kysely<Database>, options: TransactionOptions): Promise<void>;
  /**
   * Ends the transaction. `durable` settles once its writes are durable,
   * which may be after the connection is given up (SQLite's group commit).
   */
  commit(conn: Kysely<Database>): Promise<{ durable?: Promise<void> }>;
  /** Ends the transaction if the engine has not already ended it. */
  rollback(conn: Kysely<Database>, cause: unknown): Promise<void>;
}

/**
 * SQLite: the driver's own lock-waiting begin, on the connection the caller
 * holds. Its one writer already serializes every session's writes, and a
 * statement cannot outlast the caller's budget on a thread it does not yield.
 */
export function sqliteControl(driver: SqliteLockWaitingDriver): TransactionControl {
  return {
    begin: (_conn, options) => driver.begin(options),
    commit: () => Promise.resolve(driver.commit()),
    rollback: (_conn, cause) => {
      driver.rollback(cause);
      return Promise.resolve();
    },
  };
}

/** Outside a transaction (a failed `COMMIT` already ended it) this is only a warning. */
async function rollbackPostgres(conn: Kysely<Database>): Promise<void> {
  await sql`ROLLBACK`.execute(conn);
}

/**
 * PostgreSQL waits for locks in the server, off Node's thread; `lock_timeout`
 * bounds it. `BEGIN`, the bound and the session lock go as one round trip.
 */
export const postgresControl: TransactionControl = {
  async begin(conn, options) {
    const begin = postgresBegin({
      ...(options.remainingMs ? { boundMs: options.remainingMs() } : {}),
      ...(options.lockSession === undefined ? {} : { lockedSession: options.lockSession }),
    });
    try {
      await sql.raw(begin).execute(conn);
    } catch (error) {
      // `BEGIN` may have run before the bound or the lock failed: end what it opened.
      await rollbackPostgres(conn).catch(() => undefined);
      throw error;
    }
  },
  async commit(conn) {
    await sql`COMMIT`.execute(conn);
    return {};
  },
  rollback: (conn) => rollbackPostgres(conn),
};

export async function runTransaction<T>(
  db: Kysely<Database>,
  control: TransactionControl,
  options: TransactionOptions,
  work: (conn: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const { result, durable } = await db.connection().execute(async (conn) => {
    try {
      await control.begin(conn, options);
    } catch (error) {
      throw asStorageFault(error);
    }
    try {
      const result = await work(conn);
      const { durable } = await control.commit(conn);
      return { result, durable };
    } catch (error) {
      const reported = asStorageFault(error);
      try {
        await control.rollback(conn, reported);
      } catch (rollbackError) {
        // The engine has ended the transaction already (or lost the
        // connection); the error that got here is the one that explains it.
        if (reported instanceof Error) Object.assign(reported, { rollbackError });
      }
      throw reported;
    }
  });
  if (durable) {
    try {
      await durable;
    } catch (error) {
      throw asStorageFault(error);
    }
  }
  return result;
}
