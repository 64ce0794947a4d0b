/**
 * SQLite WAL checkpoints off the request path. By default the connection
 * that commits past 1,000 WAL pages copies them into the database file and
 * fsyncs both files, inside that commit, on Node's only thread: every couple
 * of hundred responds one of them waited 8–12 ms for it (bench/RESULTS.md).
 *
 * Here a worker thread with its own connection runs a PASSIVE checkpoint
 * every `intervalMs`; it never blocks the serving connection. Once a
 * checkpoint has copied the whole log, the next commit starts the log over,
 * so while commits leave gaps the serving connection never checkpoints.
 * Under a steady stream of commits, though, a checkpoint running beside them
 * never finishes the log, and only a finished log is started over: left to
 * the worker alone, the WAL grew without end. So the serving connection
 * still checkpoints on commit, past a threshold ten times SQLite's, where
 * most pages are already copied and synced. If the worker fails, SQLite's
 * own threshold comes back.
 */
import {
  SQLITE_BUSY_TIMEOUT_MS,
  WAL_CHECKPOINTER_STOP_TIMEOUT_MS,
  WAL_CHECKPOINT_INTERVAL_MS,
} from '../tunables.js';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** SQLite's default, and the serving connection's threshold while the worker runs. */
const AUTOCHECKPOINT_PAGES = 1_000;
const BACKSTOP_PAGES = 10_000;

/**
 * The worker's whole program. It is evaluated rather than loaded from a file
 * so that it runs the same from `dist/` and from the TypeScript sources the
 * tests run; the driver's path comes from the parent, so it resolves to the
 * same better-sqlite3 wherever the process was started.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** The serving connection's own checkpoint threshold while the worker runs (tests lower it). */
  backstopPages?: number;
  /** Told once, when the worker fails and the serving connection takes the work back. */
  onFailure?: (error: Error) => void;
}

export interface WalCheckpointer {
  /** Resolves once the worker is running its timer, or has failed (and reported it). */
  readonly ready: Promise<void>;
  /** Ends the worker and closes its connection; idempotent. */
  stop(): Promise<void>;
}

export function startWalCheckpointer(
  database: BetterSqlite3.Database,
  file: string,
  options: WalCheckpointerOptions = {},
): WalCheckpointer {
  database.pragma(`wal_autocheckpoint = ${options.backstopPages ?? BACKSTOP_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driverPath: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      intervalMs: options.intervalMs ?? WAL_CHECKPOINT_INTERVAL_MS,
      busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
    },
  });
  let stopping = false;
  let failed = false;
  const fail = (error: Error) => {
    if (failed || stopping) return;
    failed = true;
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    options.onFailure?.(error);
  };
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      fail(new Error(`WAL checkpoint worker exited with code ${code}`));
      resolve();
    });
  });
  const ready = new Promise<void>((resolve) => {
    worker.once('message', () => {
      resolve();
    });
    void exited.then(resolve);
  });
  worker.on('error', fail);
  // The worker must never keep the process alive on its own.
  worker.unref();

  return {
    ready,
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), WAL_CHECKPOINTER_STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timeout);
    },
  };
}
