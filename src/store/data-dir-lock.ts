/**
 * One server per SQLite data directory. Two servers on one database each
 * believe they own its sessions and live waits: the second one's start-up
 * recovery would reset the first one's waiting sessions and answers in
 * flight. So a server holds an exclusive lock on a side file for as long as
 * it runs, and a second one refuses to start, naming the holder's PID.
 *
 * The lock is SQLite's own: a small side database in exclusive locking mode,
 * written once, keeps its POSIX lock until the connection closes or the
 * process dies, and the kernel drops it on any death, SIGKILL included, so a
 * crash never leaves a stale lock behind. The main database file is not
 * locked: other processes (a future `clarion sign-in-link`, tests, an
 * operator's `sqlite3`) may still read and write it while the server runs.
 * The PID file only names the holder in the refusal; the lock decides. The
 * holder writes it just after taking the lock, so a server started at the
 * same moment may find none yet, or a crashed server's: a PID file counts
 * only once written after the lock file's last write (the holder's), and
 * the refused server waits for one within `DATA_DIR_HOLDER_WAIT_MS`, else
 * says it could not tell.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { makeDirectory } from '../support/index.js';
import { DATA_DIR_HOLDER_RECHECK_MS, DATA_DIR_HOLDER_WAIT_MS } from '../tunables.js';
import { isDamagedDatabase } from './faults.js';
import { DATA_DIR_MODE, StoreOpenError, unusableDataDir } from './open.js';

export const LOCK_FILE = 'server.lock';
export const PID_FILE = 'server.pid';

/** Another live server holds the data directory. */
export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked';
  constructor(
    readonly dataDir: string,
    /** The holder's PID as the PID file it wrote says; `undefined` when none could be read in time. */
    readonly holderPid: number | undefined,
  ) {
    super(
      `data directory ${dataDir} is in use by another Clarion server ` +
        `(${holderPid === undefined ? 'its PID could not be told' : `PID ${holderPid}`}); ` +
        'stop it first, or give this one its own CLARION_DATA_DIR',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  /** Releases the lock and removes the PID file; safe to call twice. */
  release(): void;
}

/**
 * Takes the data directory's lock, or throws `DataDirLockedError` without
 * waiting for the lock (only, within a bound, for its holder's PID file).
 */
export function lockDataDir(
  dataDir: string,
  pid: number = process.pid,
  holderWaitMs: number = DATA_DIR_HOLDER_WAIT_MS,
): DataDirLock {
  const pidFile = join(dataDir, PID_FILE);
  const lockFile = join(dataDir, LOCK_FILE);
  let lock: BetterSqlite3.Database;
  try {
    makeDirectory(dataDir, DATA_DIR_MODE);
    // No busy wait: a held lock is an answer, not something to wait out.
    lock = new BetterSqlite3(lockFile, { timeout: 0 });
  } catch (error) {
    throw unusableDataDir(dataDir, lockFile, error);
  }
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // The write takes the exclusive lock; exclusive locking mode keeps it after the commit.
    lock.exec('BEGIN EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
    lock.exec('DELETE FROM holder');
    lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(pid);
    lock.exec('COMMIT');
  } catch (error) {
    lock.close();
    if (isBusy(error)) {
      throw new DataDirLockedError(dataDir, holderPid(pidFile, lockFile, holderWaitMs));
    }
    // It holds nothing but the holder's PID, and no server can hold a file SQLite cannot read.
    if (isDamagedDatabase(error)) {
      throw new StoreOpenError(
        'data_dir_unusable',
        `lock file ${lockFile} is damaged (${error instanceof Error ? error.message : String(error)}); ` +
          'no server holds it: remove it and start again',
        error,
      );
    }
    throw unusableDataDir(dataDir, lockFile, error);
  }
  try {
    writeFileSync(pidFile, `${pid}\n`);
  } catch (error) {
    // A full disk, say: the start fails, and the lock is not kept by a process that goes on.
    lock.close();
    throw unusableDataDir(dataDir, pidFile, error);
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      // Only our own PID file: the lock is still ours here, so nobody else wrote one.
      if (readPid(pidFile) === pid) rmSync(pidFile, { force: true });
      lock.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** The PID the lock's holder wrote, waiting up to `waitMs` for it (the refusal's path only). */
function holderPid(pidFile: string, lockFile: string, waitMs: number): number | undefined {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const pid = writtenSinceLocked(pidFile, lockFile) ? readPid(pidFile) : undefined;
    if (pid !== undefined || Date.now() >= deadline) return pid;
    // The server is refused and about to exit: nothing else runs that this sleep could stall.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, DATA_DIR_HOLDER_RECHECK_MS);
  }
}

/** Whether the PID file was written after the lock was taken (a crashed holder's is older). */
function writtenSinceLocked(pidFile: string, lockFile: string): boolean {
  try {
    return (
      statSync(pidFile, { bigint: true }).mtimeNs >= statSync(lockFile, { bigint: true }).mtimeNs
    );
  } catch {
    return false;
  }
}

function readPid(file: string): number | undefined {
  try {
    const value = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
