/**
 * Kysely's SQLite driver, rewritten so that no wait for a lock stops the
 * event loop. better-sqlite3 waits for another connection's lock inside the
 * call (`busy_timeout`), on Node's only thread: while another process held
 * the write lock, nothing else was served and no budget could fire. Here the
 * busy timeout is zero and a busy answer is retried after a short, jittered
 * sleep, with the connection handed to other work meanwhile. Write
 * transactions that end in the same turn of the event loop share one
 * `COMMIT` (`commit-group.ts`).
 *
 * Invariants:
 * - One connection, one holder at a time (a mutex), as in Kysely's driver.
 * - No other work ever runs inside someone else's open write transaction:
 *   the holder gives the connection up while it sleeps only before its
 *   transaction begins. Between transactions, a group of ended ones may be
 *   open; work that runs then joins it, and hears of nothing before its
 *   `COMMIT`.
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
import { setImmediate, setTimeout } from 'node:timers';
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
import { CommitGroup } from './commit-group.js';
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

/**
 * Waiters queue in order, and `unlock` hands the mutex to the first of them.
 * Waking every waiter at each release, for all but one to wait again, cost
 * every statement a wake-up per waiter: with 32 agents at once, a tenth of
 * what the engine cycle allocated.
 */
class Mutex {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    // Handed over still held, so nobody takes it in between.
    if (next) next();
    else this.held = false;
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

/** One holder's use of the connection, from acquire to release. */
interface Hold extends DatabaseConnection {
  held: boolean;
}

export class SqliteLockWaitingDriver implements Driver {
  private readonly mutex = new Mutex();
  /** The writes waiting for one `COMMIT`, while SQLite's transaction is open between them. */
  private group: CommitGroup | undefined;
  /** A write transaction is between its begin and its end (the mutex's holder runs it). */
  private memberOpen = false;
  private flushScheduled = false;
  private busySince: number | undefined;
  private spare: Hold | undefined;

  constructor(
    /** The raw handle: whether a transaction is open, and the statements of its control. */
    private readonly raw: BetterSqlite3.Database,
    /** Where statements are prepared (the statement cache). */
    private readonly database: SqliteDatabase,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    const hold = this.spare ?? this.newHold();
    this.spare = undefined;
    hold.held = true;
    return hold;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const hold = connection as Hold;
    this.letGo(hold);
    this.spare ??= hold;
    return Promise.resolve();
  }

  /**
   * Begins a write transaction on the connection its caller holds: a
   * savepoint in the open group, or a new group. While the write lock is busy
   * the connection serves others; it is held again before the next try, and
   * on return, with the transaction open.
   */
  async begin(bound?: LockWaitBound): Promise<void> {
    await retryWhileBusy(
      () => {
        // Someone may have begun the group while this caller slept on a busy lock.
        if (this.group) {
          this.group.join(this.raw);
          return;
        }
        this.raw.exec('BEGIN IMMEDIATE');
        this.group = new CommitGroup();
      },
      (ms) => this.handOver(ms),
      bound,
    );
    this.memberOpen = true;
  }

  /**
   * Ends the open transaction into its group. The caller gives the
   * connection up, then waits for `durable`: the group's `COMMIT`, after this
   * turn of the event loop.
   */
  commit(): { durable: Promise<void> } {
    const group = this.openGroup();
    group.release(this.raw);
    this.memberOpen = false;
    this.scheduleFlush();
    return { durable: group.durable };
  }

  /**
   * Undoes the open transaction's writes, and only those. SQLite rolls back
   * the whole transaction by itself on some errors (a full disk, an I/O
   * error); the group's other members are then lost and told so.
   */
  rollback(cause?: unknown): void {
    this.memberOpen = false;
    const group = this.group;
    if (group === undefined) {
      if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
      return;
    }
    if (group.rollBackMember(this.raw, cause)) this.scheduleFlush();
    else this.group = undefined;
  }

  /** Kysely's own `db.transaction()` (tests, scripts): the same lock discipline, bounded store-wide. */
  beginTransaction(): Promise<void> {
    return this.begin();
  }

  commitTransaction(): Promise<void> {
    return this.commit().durable;
  }

  rollbackTransaction(): Promise<void> {
    this.rollback();
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    this.flush();
    // A commit still busy is given up; its pending retry then finds no group to commit.
    const group = this.group;
    this.group = undefined;
    group?.abandon(this.raw, new StorageUnavailableError('unreachable', 'the store closed'));
    this.database.close();
    return Promise.resolve();
  }

  /**
   * A holder that gave the connection up early (its statement waits for a
   * group) still owns its hold until it releases it, so holds are kept apart;
   * released ones are reused, and most acquires take the same one.
   */
  private newHold(): Hold {
    const hold: Hold = {
      held: false,
      executeQuery: (compiled) => this.execute(hold, compiled),
      streamQuery: <R>(compiled: CompiledQuery) => this.stream<R>(compiled),
    };
    return hold;
  }

  private letGo(hold: Hold): void {
    if (!hold.held) return;
    hold.held = false;
    this.mutex.unlock();
  }

  private openGroup(): CommitGroup {
    if (!this.group || !this.memberOpen) throw new Error('no write transaction is open');
    return this.group;
  }

  /** After this turn of the event loop, so that writes this turn's other I/O leads to can join. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * Commits the open group, unless a write is still open in it (it awaits
   * something outside SQLite): its end schedules the flush again. A busy
   * answer is tried again after a short sleep, within the store-wide bound;
   * more writes may join meanwhile.
   */
  private flush(): void {
    const group = this.group;
    if (group === undefined || this.memberOpen) return;
    if (group.commit(this.raw)) {
      this.group = undefined;
      this.busySince = undefined;
      return;
    }
    const now = performance.now();
    this.busySince ??= now;
    if (now - this.busySince >= STORE_LOCK_WAIT_MAX_MS) {
      this.group = undefined;
      this.busySince = undefined;
      group.abandon(this.raw, new StorageUnavailableError('lock_busy', 'the commit stayed busy'));
      return;
    }
    // One retry pending at a time: writes that join meanwhile need no flush of their own.
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      this.flush();
    }, backoffMs(0));
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
   * One statement. Inside the holder's transaction it runs there. Outside
   * one, while a group is open, it runs in the group and sees its writes, so
   * its result waits for the group's commit, with the connection given up
   * meanwhile so that more writes can join. Otherwise it is its own
   * transaction, and a busy answer is waited out like a `BEGIN`'s.
   */
  private async execute<R>(hold: Hold, compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (!hold.held) {
      await this.mutex.lock();
      hold.held = true;
    }
    const run = () => this.run<R>(compiled);
    if (this.memberOpen) return run();
    const group = this.group;
    if (group === undefined) return retryWhileBusy(run, (ms) => this.handOver(ms));
    let result: QueryResult<R>;
    try {
      result = run();
    } catch (error) {
      // SQLite ends the whole transaction by itself on some errors: the group is gone.
      if (!this.raw.inTransaction) {
        this.group = undefined;
        group.lose(error);
      }
      throw error;
    }
    this.letGo(hold);
    await group.durable;
    return result;
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

  /** A stream holds the connection while it is read: an open group is committed first. */
  private stream<R>({
    sql,
    parameters,
    query,
  }: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query)) throw new Error('SQLite streams only SELECT statements');
    if (!this.memberOpen) this.flush();
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
