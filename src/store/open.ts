/**
 * Opens the database for a driver and brings its schema up to date. Nothing
 * else in Clarion constructs a connection. The returned store admits work only
 * after every schema step has succeeded.
 */
import { PG_SCHEMA_STEP_REPLY_MAX_MS, SQLITE_BUSY_TIMEOUT_MS } from '../tunables.js';
import { accessSync, closeSync, constants, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, type KyselyPlugin } from 'kysely';
import pg from 'pg';
import { makeDirectory, systemClock, type Clock } from '../support/index.js';
import { uuidSource, type IdSource } from '../support/index.js';
import type { RepoContext } from './context.js';
import { dialectFor, type Dialect, type Driver } from './dialect.js';
import { isDamagedDatabase, reportingStorageFaults, storageFaultReason } from './faults.js';
import { applySchema, schemaSteps, type SchemaState, type SchemaStep } from './schema.js';
import { boundSession, pgConnectionConfig } from './pg-connection.js';
import { DEFAULT_PREPARED_STATEMENTS, preparingPool } from './pg-prepared.js';
import { ReplyBound } from './pg-reply-bound.js';
import { SqliteLockWaitingDriver, sqliteLockWaitingDialect } from './sqlite-driver.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './tables.js';
import {
  postgresControl,
  runTransaction,
  sqliteControl,
  type TransactionControl,
  type TransactionOptions,
} from './transaction.js';
import { startWalCheckpointer } from './wal-checkpointer.js';
import {
  localWakeChannel,
  postgresWakeChannel,
  type ListenerEvents,
  type WakeChannel,
} from './wake.js';

export type DatabaseTarget =
  | { readonly driver: 'sqlite'; readonly dataDir: string }
  | {
      readonly driver: 'postgres';
      readonly url: string;
      /** How many statement texts to prepare by name (`pg-prepared.ts`); 0 sends all unnamed. */
      readonly preparedStatements?: number;
      /** How long a statement's reply may take (`pg-reply-bound.ts`); tests shorten it. */
      readonly statementReplyMaxMs?: number;
    };

export interface OpenOptions extends ListenerEvents {
  clock?: Clock;
  ids?: IdSource;
  /** Replaces the start-up steps; tests use it to inject a failing step. */
  steps?: (dialect: Dialect) => readonly SchemaStep[];
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** Kysely plugins around every query; tests inject a slow database this way. */
  plugins?: KyselyPlugin[];
  /** SQLite: how often the background WAL checkpoint runs (`wal-checkpointer.ts`). */
  checkpointIntervalMs?: number;
  /** Told when background work stops and the store falls back to doing it inline. */
  onBackgroundFailure?: (error: Error) => void;
  /**
   * PostgreSQL: an idle pooled connection was lost (the server restarted, an
   * admin or `idle_session_timeout` ended it). The pool drops it and connects
   * again on demand; without a handler the error would end the process.
   */
  onIdleConnectionLost?: (error: Error) => void;
}

export interface Store extends RepoContext {
  readonly driver: Driver;
  readonly schema: SchemaState;
  /**
   * Runs `work` in one write transaction; it commits when `work` resolves. A
   * lock held elsewhere is waited for without blocking the event loop, within
   * `options` and the store's own bound; past them, and on a full disk or an
   * I/O error, it fails with `StorageUnavailableError`.
   */
  transaction<T>(work: (tx: RepoContext) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Wake-ups sent with a commit, heard by every server on the database (`wake.ts`). */
  readonly wakes: WakeChannel;
  /** Round trip to the database, for health checks. */
  ping(): Promise<void>;
  /** Brings planner statistics up to date where the engine does not do it itself. */
  refreshStatistics(): Promise<void>;
  close(): Promise<void>;
}

export type StoreOpenErrorCode =
  'data_dir_unusable' | 'database_read_only' | 'database_unreachable';

/** The database could not be reached or created; the message is one line meant for a person. */
export class StoreOpenError extends Error {
  constructor(
    readonly code: StoreOpenErrorCode,
    message: string,
    cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'StoreOpenError';
  }
}

export const SQLITE_FILE = 'clarion.db';

/**
 * What Clarion creates in a data directory is its user's alone: the database
 * holds every question and answer, channels' webhook URLs and tokens and the
 * Web Push private key. SQLite gives the WAL and its index the database
 * file's permissions. A directory or file that already exists keeps its own.
 */
export const DATA_DIR_MODE = 0o700;
const DATABASE_FILE_MODE = 0o600;

/** Creates the database file, empty (an empty file is an empty SQLite database), unless it exists. */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, 'wx', DATABASE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * A connection with no schema work: `openStore` builds on it, and tests use it
 * to shape a database (an older schema, an obstruction) before start-up runs.
 */
export async function connectDatabase(
  target: DatabaseTarget,
  poolSize = 10,
): Promise<Kysely<Database>> {
  return (await connect(target, poolSize)).db;
}

interface Connection {
  db: Kysely<Database>;
  control: TransactionControl;
  /** SQLite's own handle and file, for the background WAL checkpoints. */
  sqlite?: { database: BetterSqlite3.Database; file: string };
  /** PostgreSQL: the bound on every statement's reply. */
  replyBound?: ReplyBound;
}

async function connect(
  target: DatabaseTarget,
  poolSize = 10,
  onIdleConnectionLost: (error: Error) => void = () => undefined,
): Promise<Connection> {
  return target.driver === 'sqlite'
    ? openSqlite(target.dataDir)
    : { ...(await openPostgres(target, poolSize, onIdleConnectionLost)), control: postgresControl };
}

export async function openStore(target: DatabaseTarget, options: OpenOptions = {}): Promise<Store> {
  const dialect = dialectFor(target.driver);
  const connection = await connect(target, options.poolSize, options.onIdleConnectionLost);
  const db = (options.plugins ?? []).reduce(
    (wrapped, plugin) => wrapped.withPlugin(plugin),
    connection.db,
  );
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? uuidSource;
  try {
    const steps = (options.steps ?? schemaSteps)(dialect);
    const schemaWork = () =>
      dialect.exclusiveStartUp(db, PG_SCHEMA_STEP_REPLY_MAX_MS, async (conn) => {
        const state = await applySchema(conn, dialect, steps);
        await dialect.refreshStatistics(conn);
        return state;
      });
    const schema = connection.replyBound
      ? await connection.replyBound.during(PG_SCHEMA_STEP_REPLY_MAX_MS, schemaWork)
      : await schemaWork();
    const checkpointer =
      connection.sqlite === undefined
        ? undefined
        : startWalCheckpointer(connection.sqlite.database, connection.sqlite.file, {
            ...(options.checkpointIntervalMs ? { intervalMs: options.checkpointIntervalMs } : {}),
            ...(options.onBackgroundFailure ? { onFailure: options.onBackgroundFailure } : {}),
          });
    const wakes =
      target.driver === 'sqlite'
        ? localWakeChannel()
        : postgresWakeChannel(
            target.url,
            options.onListenerDown ? { onListenerDown: options.onListenerDown } : {},
            target.statementReplyMaxMs,
          );
    return {
      driver: target.driver,
      dialect,
      db,
      clock,
      ids,
      schema,
      wakes,
      transaction: async (work, transactionOptions = {}) => {
        let tx: RepoContext | undefined;
        const result = await runTransaction(db, connection.control, transactionOptions, (conn) => {
          tx = { db: conn, dialect, clock, ids };
          wakes.begun(tx);
          return work(tx);
        });
        if (tx) wakes.committed(tx);
        return result;
      },
      ping: async () => {
        await sql`SELECT 1`.execute(db);
      },
      refreshStatistics: () => dialect.refreshStatistics(db),
      close: async () => {
        // First, so that the serving connection is the last one and its close
        // checkpoints the rest of the WAL and removes it.
        await checkpointer?.stop();
        await wakes.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

function openSqlite(dataDir: string): Connection {
  const file = join(dataDir, SQLITE_FILE);
  let database: BetterSqlite3.Database;
  try {
    makeDirectory(dataDir, DATA_DIR_MODE);
    createPrivately(file);
    // Zero from the first statement: better-sqlite3's default waits 5 s for a
    // lock inside the call, stopping the event loop (the probe below would).
    database = new BetterSqlite3(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    database.pragma('journal_mode = WAL');
    probeWritable(database);
  } catch (error) {
    throw unusableDataDir(dataDir, file, error);
  }
  database.pragma('foreign_keys = ON');
  // NORMAL is durable across application crashes in WAL mode; only an OS
  // crash can lose the last commits.
  database.pragma('synchronous = NORMAL');
  // Waits for locks happen in the driver, asynchronously (sqlite-driver.ts).
  const driver = new SqliteLockWaitingDriver(database, withStatementCache(database));
  const db = new Kysely<Database>({
    dialect: reportingStorageFaults(sqliteLockWaitingDialect(driver)),
  });
  return { db, control: sqliteControl(driver), sqlite: { database, file } };
}

/**
 * SQLite opens a file it may not write read-only, without a word, and the
 * first write fails much later; one write, rolled back, says it now.
 */
function probeWritable(database: BetterSqlite3.Database): void {
  const version = Number(database.pragma('user_version', { simple: true }));
  try {
    database.exec('BEGIN IMMEDIATE');
  } catch (error) {
    // Another process writing right now says nothing about permissions.
    if (storageFaultReason(error) === 'lock_busy') return;
    throw error;
  }
  try {
    // A write of what is already there, rolled back: only the permission is tested.
    database.pragma(`user_version = ${version}`);
  } finally {
    if (database.inTransaction) database.exec('ROLLBACK');
  }
}

/**
 * Why a SQLite file in `dataDir` could not be opened or written, as the
 * start-up error: a read-only file or directory is named as such.
 */
export function unusableDataDir(dataDir: string, file: string, error: unknown): StoreOpenError {
  if (isDamagedDatabase(error)) {
    return new StoreOpenError(
      'data_dir_unusable',
      `database file ${file} is damaged or is not a SQLite database: ${describe(error)}; ` +
        'restore it from a backup',
      error,
    );
  }
  const readOnly = readOnlyPart(dataDir, file, error);
  if (readOnly) {
    return new StoreOpenError(
      'database_read_only',
      `${readOnly} is read-only; Clarion must be able to write it ` +
        `(check its permissions and the file system): ${describe(error)}`,
      error,
    );
  }
  return new StoreOpenError(
    'data_dir_unusable',
    `data directory ${dataDir} is not usable: ${fullDiskPart(error)}${describe(error)}`,
    error,
  );
}

/** What to say first when the disk is, or most likely is, why; else nothing. */
function fullDiskPart(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || storageFaultReason(error) === 'disk_full') {
    return 'its disk is full (free some space, then start again): ';
  }
  // SQLite's words for a shared-memory file it could not grow: a disk I/O error.
  if (code === 'SQLITE_IOERR_SHMSIZE') {
    return 'SQLite could not grow its shared-memory file, most likely because its disk is full: ';
  }
  return '';
}

/** Which of the database's places cannot be written, if that is why opening failed. */
function readOnlyPart(dataDir: string, file: string, error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const refused =
    storageFaultReason(error) === 'read_only' ||
    code === 'EROFS' ||
    code === 'EACCES' ||
    code === 'SQLITE_CANTOPEN';
  if (!refused) return undefined;
  if (existsSync(file) && !writable(file)) return `database file ${file}`;
  if (existsSync(dataDir) && !writable(dataDir)) return `data directory ${dataDir}`;
  // Neither says so to this process (root, say), but the engine did.
  return storageFaultReason(error) === 'read_only' ? `database file ${file}` : undefined;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

async function openPostgres(
  {
    url,
    preparedStatements = DEFAULT_PREPARED_STATEMENTS,
    statementReplyMaxMs,
  }: DatabaseTarget & { driver: 'postgres' },
  poolSize: number,
  onIdleConnectionLost: (error: Error) => void,
): Promise<{ db: Kysely<Database>; replyBound: ReplyBound }> {
  // pg-pool awaits `onConnect` before handing the connection out, and ends a connection whose
  // bounds could not be set (its checkout fails); its types say the hook returns nothing.
  const config: pg.PoolConfig & { onConnect: (client: pg.ClientBase) => Promise<void> } = {
    ...pgConnectionConfig(url),
    max: poolSize,
    onConnect: boundSession,
  };
  const pool = new pg.Pool(config);
  // The pool re-emits an idle client's error; unheard, an EventEmitter's 'error' throws.
  pool.on('error', (error: Error & { client?: unknown }) => {
    // pg-pool hangs the whole client on the error: a logger would write out its every
    // prepared statement and its connection settings with it.
    delete error.client;
    onIdleConnectionLost(error);
  });
  // Surface a bad URL here, as one clear error, rather than at the first request.
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end();
    throw new StoreOpenError(
      'database_unreachable',
      `cannot connect to PostgreSQL at ${redactUrl(url)}: ${describe(error)}`,
      error,
    );
  }
  const replyBound = new ReplyBound(statementReplyMaxMs);
  const dialect = new PostgresDialect({
    pool: preparingPool(pool, preparedStatements, replyBound),
  });
  return { db: new Kysely<Database>({ dialect: reportingStorageFaults(dialect) }), replyBound };
}

/** The URL without its password, fit for a log line. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return describe(error.errors[0]);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
