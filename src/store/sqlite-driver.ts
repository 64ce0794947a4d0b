/**
 * Kysely's SQLite driver, rewritten so that no wait for a lock stops the
 * event loop. better-sqlite3 waits for another connection's lock inside the
 * call (`busy_timeout`), on Node's only thread: while another process held
 * the write lock, nothing else was served and no budget could fire. Here the
 * busy timeout is zero and a busy answer is retried after a short, jittered
 * sleep, with the connection handed to other work meanwhile.
 *
 * Invariants:
 * - One connection, one holder at a time (a mutex), as in Kysely's driver.
 * - The holder gives the connection up while it sleeps only when no
 *   transaction is open on it, so no other work ever runs inside someone
 *   else's transaction.
 * - A write transaction takes the write lock when it begins (`BEGIN
 *   IMMEDIATE`): it waits there, before doing anything, and never finds the
 *   lock taken half-way, where a deferred one must give up (a busy snapshot).
 * - Every wait ends by its bound: the caller's remaining time, and at most
 *   `STORE_LOCK_WAIT_MAX_MS`; past it the wait fails with `lock_busy`.
 */
import {
  STORE_LOCK_RETRY_MAX_MS,
  STORE_LOCK_RETRY_MIN_MS,
  STORE_LOCK_WAIT_MAX_MS,
} from '../tunables.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';
import { StorageUnavailableError, storageFaultReason } from './faults.js';

/** How long a lock may still be waited for. */
export interface LockWaitBound {
  /** The caller's remaining time, read before every retry (the resolver's budget). */
  readonly remainingMs?: () => number;
  readonly signal?: AbortSignal;
}

function isBusy(error: unknown): boolean {
  return storageFaultReason(error) === 'lock_busy';
}

/** Small, growing and jittered, so that waiters do not retry in step. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(STORE_LOCK_RETRY_MAX_MS, STORE_LOCK_RETRY_MIN_MS * 2 ** attempt);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

class Mutex {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

/**
 * Runs `attempt` until it does not fail busy, sleeping between tries (in
 * `pause`, which may hand the connection over) until the bound runs out.
 */
async function retryWhileBusy<T>(
  attempt: () => T,
  pause: (ms: number) => Promise<void>,
  bound: LockWaitBound = {},
): Promise<T> {
  const deadline = performance.now() + STORE_LOCK_WAIT_MAX_MS;
  for (let tries = 0; ; tries += 1) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const left = Math.min(deadline - performance.now(), bound.remainingMs?.() ?? Infinity);
      if (left <= 0 || bound.signal?.aborted) throw new StorageUnavailableError('lock_busy', error);
      await pause(Math.min(left, backoffMs(tries)));
    }
  }
}

export class SqliteLockWaitingDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly connection: DatabaseConnection;

  constructor(
    /** The raw handle: whether a transaction is open, and the statements of its control. */
    private readonly raw: BetterSqlite3.Database,
    /** Where statements are prepared (the statement cache). */
    private readonly database: SqliteDatabase,
  ) {
    this.connection = {
      executeQuery: (compiled) => this.execute(compiled),
      streamQuery: <R>(compiled: CompiledQuery) => this.stream<R>(compiled),
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }

  releaseConnection(): Promise<void> {
    this.mutex.unlock();
    return Promise.resolve();
  }

  /**
   * Begins a write transaction on the connection its caller holds. While the
   * lock is busy the connection serves others; it is held again before the
   * next try, and on return, with the transaction open.
   */
  async begin(bound?: LockWaitBound): Promise<void> {
    await retryWhileBusy(
      () => this.raw.exec('BEGIN IMMEDIATE'),
      (ms) => this.handOver(ms),
      bound,
    );
  }

  /**
   * Commits the open transaction. In WAL mode a commit does not wait for
   * locks, but if it ever answers busy, the transaction is still open and
   * the commit may be tried again; the connection stays held meanwhile.
   */
  async commit(bound?: LockWaitBound): Promise<void> {
    await retryWhileBusy(
      () => this.raw.exec('COMMIT'),
      (ms) => sleep(ms),
      bound,
    );
  }

  /**
   * Rolls back if a transaction is still open. SQLite rolls back by itself on
   * some errors (a full disk, an I/O error); a `ROLLBACK` after that fails
   * with "no transaction is active", which must not replace the cause.
   */
  rollback(): void {
    if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
  }

  /** Kysely's own `db.transaction()` (tests, scripts): the same lock discipline, bounded store-wide. */
  beginTransaction(): Promise<void> {
    return this.begin();
  }

  commitTransaction(): Promise<void> {
    return this.commit();
  }

  rollbackTransaction(): Promise<void> {
    this.rollback();
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    this.database.close();
    return Promise.resolve();
  }

  private async handOver(ms: number): Promise<void> {
    this.mutex.unlock();
    try {
      await sleep(ms);
    } finally {
      await this.mutex.lock();
    }
  }

  /**
   * One statement. Outside a transaction a busy answer is waited out like a
   * `BEGIN`'s (it is one statement's own transaction); inside one, the write
   * lock is already held, so a busy answer is a fault to report.
   */
  private execute<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const run = () => this.run<R>(compiled);
    if (this.raw.inTransaction) return Promise.resolve(run());
    return retryWhileBusy(run, (ms) => this.handOver(ms));
  }

  private run<R>({ sql, parameters }: CompiledQuery): QueryResult<R> {
    const statement = this.database.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    };
  }

  private stream<R>({
    sql,
    parameters,
    query,
  }: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query)) throw new Error('SQLite streams only SELECT statements');
    const rows = this.database.prepare(sql).iterate(parameters) as Iterator<R>;
    return {
      next: () => {
        const step = rows.next();
        return Promise.resolve(
          step.done
            ? { done: true, value: undefined }
            : { done: false, value: { rows: [step.value] } },
        );
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

/** A Kysely dialect over one better-sqlite3 handle, with `SqliteLockWaitingDriver`. */
export function sqliteLockWaitingDialect(driver: SqliteLockWaitingDriver): Dialect {
  return {
    createDriver: () => driver,
    createAdapter: () => new SqliteAdapter(),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}
