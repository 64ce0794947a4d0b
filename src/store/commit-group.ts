/**
 * Group commit on SQLite's one connection. A write transaction ends in a
 * `RELEASE` of its own savepoint inside a longer SQLite transaction, and the
 * `COMMIT` that makes it durable runs once the event loop's current turn is
 * over, for every transaction that ended in that turn. Under concurrency
 * one commit (its WAL frames, its write calls) then serves many writes; with
 * one writer it costs an empty hop.
 *
 * What keeps it honest:
 * - No caller hears of its write before the `COMMIT` that holds it returns:
 *   its `durable` promise settles then, and rejects with the commit's error
 *   if the group is lost (a full disk, an I/O error). Nothing a caller does
 *   on success (answer a request, hand an answer to an agent, publish
 *   events) can happen for a write that is then rolled back.
 * - A member that fails rolls back to its savepoint alone; the others stay.
 * - A statement outside any transaction that runs while a group is open runs
 *   inside it and sees its writes, so its result too is held until the group
 *   is durable (`SqliteLockWaitingDriver.execute`): a reader can never act
 *   on a claim that a failed commit then undoes.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StorageUnavailableError, asStorageFault, storageFaultReason } from './faults.js';

const SAVEPOINT = 'member';

export class CommitGroup {
  readonly durable: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: Error) => void;
  private members = 0;
  /** The open member began with a savepoint (it is not the first). */
  private savepoint = false;

  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Members await it; a group that loses its last member before any joined has no one to tell.
    this.durable.catch(() => undefined);
  }

  /**
   * Joins the open group. The first member needs no savepoint: if it fails,
   * the whole transaction is rolled back.
   */
  join(raw: BetterSqlite3.Database): void {
    raw.exec(`SAVEPOINT ${SAVEPOINT}`);
    this.savepoint = true;
  }

  /** The member's writes become the group's; durable with it. */
  release(raw: BetterSqlite3.Database): void {
    if (this.savepoint) raw.exec(`RELEASE ${SAVEPOINT}`);
    this.savepoint = false;
    this.members += 1;
  }

  /**
   * Undoes the open member's writes. True when the group goes on; false when
   * it is over (it had no other member, or SQLite ended the whole
   * transaction itself and the others are lost with it, and told so).
   */
  rollBackMember(raw: BetterSqlite3.Database, cause: unknown): boolean {
    const savepoint = this.savepoint;
    this.savepoint = false;
    if (raw.inTransaction) {
      try {
        if (savepoint) {
          raw.exec(`ROLLBACK TO ${SAVEPOINT}`);
          raw.exec(`RELEASE ${SAVEPOINT}`);
        }
        if (this.members > 0) return true;
        raw.exec('ROLLBACK');
        this.resolve();
        return false;
      } catch (error) {
        endTransaction(raw);
        cause = error;
      }
    }
    this.lose(cause);
    return false;
  }

  /** SQLite ended the transaction by itself (`cause`): every member is lost. */
  lose(cause: unknown): void {
    this.reject(lostWith(cause));
  }

  /** Commits every member; false when SQLite answered busy and the group is still open. */
  commit(raw: BetterSqlite3.Database): boolean {
    try {
      raw.exec('COMMIT');
    } catch (error) {
      if (storageFaultReason(error) === 'lock_busy') return false;
      endTransaction(raw);
      this.reject(asError(asStorageFault(error)));
      return true;
    }
    this.resolve();
    return true;
  }

  /** Gives up on a commit that stayed busy past its bound. */
  abandon(raw: BetterSqlite3.Database, error: Error): void {
    endTransaction(raw);
    this.reject(error);
  }
}

/** Rolls back what is left; a rollback that fails too has nothing more to undo. */
function endTransaction(raw: BetterSqlite3.Database): void {
  try {
    if (raw.inTransaction) raw.exec('ROLLBACK');
  } catch {
    // The connection reports the cause on its next statement, if it still matters.
  }
}

/** The members committed before a failure SQLite answered by rolling back everything. */
function lostWith(cause: unknown): Error {
  const fault = asStorageFault(cause);
  return fault instanceof StorageUnavailableError
    ? fault
    : new StorageUnavailableError('io_error', cause);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
