/**
 * How `store.transaction` runs on each engine: begin (waiting for the write
 * lock without blocking the event loop, within the caller's bound), run the
 * work on that one connection, commit; on any failure roll back and report
 * the failure that got there, never one the rollback raised after it.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { asStorageFault } from './faults.js';
import type { LockWaitBound, SqliteLockWaitingDriver } from './sqlite-driver.js';
import type { Database } from './tables.js';

/** How long a transaction may wait to begin, and the bound on its statements. */
export type TransactionOptions = LockWaitBound;

/** An engine's begin, commit and rollback on an acquired connection. */
export interface TransactionControl {
  begin(conn: Kysely<Database>, bound: LockWaitBound): Promise<void>;
  /**
   * Ends the transaction. `durable` settles once its writes are durable,
   * which may be after the connection is given up (SQLite's group commit).
   */
  commit(conn: Kysely<Database>): Promise<{ durable?: Promise<void> }>;
  /** Ends the transaction if the engine has not already ended it. */
  rollback(conn: Kysely<Database>, cause: unknown): Promise<void>;
}

/** SQLite: the driver's own lock-waiting begin, on the connection the caller holds. */
export function sqliteControl(driver: SqliteLockWaitingDriver): TransactionControl {
  return {
    begin: (_conn, bound) => driver.begin(bound),
    commit: () => Promise.resolve(driver.commit()),
    rollback: (_conn, cause) => {
      driver.rollback(cause);
      return Promise.resolve();
    },
  };
}

/** PostgreSQL waits for locks in the server, off Node's thread; `lock_timeout` bounds it. */
export const postgresControl: TransactionControl = {
  async begin(conn) {
    await sql`BEGIN`.execute(conn);
  },
  async commit(conn) {
    await sql`COMMIT`.execute(conn);
    return {};
  },
  async rollback(conn) {
    // Outside a transaction (a failed COMMIT already ended it) this is only a warning.
    await sql`ROLLBACK`.execute(conn);
  },
};

export async function runTransaction<T>(
  db: Kysely<Database>,
  dialect: Dialect,
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
      if (options.remainingMs) await dialect.boundTransaction(conn, options.remainingMs());
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
