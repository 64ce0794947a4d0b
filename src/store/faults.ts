/**
 * Storage faults: what the database answers when it cannot do the work now
 * (a lock another process holds past the bound, a full disk, an I/O error, a
 * read-only file, a lost connection), as opposed to what a statement got
 * wrong. Each becomes one `StorageUnavailableError` with a stable `code`, so
 * the layers above answer 503 and say the cause instead of a 500.
 *
 * Both engines' codes are read here and nowhere else. A lock wait PostgreSQL
 * gave up (`55P03`: the store's bound, or a caller's budget that shortened
 * it) is `lock_busy`, as SQLite's is. A statement timeout (`57014`) is left
 * alone: only a caller's budget sets one, and the resolver counts it as such.
 */
import type { DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';

export type StorageFaultReason =
  'lock_busy' | 'disk_full' | 'io_error' | 'read_only' | 'unreachable';

/** The database cannot do the work now; retrying later may succeed. */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable';
  /** The engine's own code (`SQLITE_FULL`, `53100`, …), for the log. */
  readonly engineCode: string | undefined;

  constructor(
    readonly reason: StorageFaultReason,
    cause: unknown,
  ) {
    super(`storage unavailable (${reason.replace('_', ' ')}): ${describeCause(cause)}`, { cause });
    this.name = 'StorageUnavailableError';
    this.engineCode = codeOf(cause);
  }
}

export function isStorageUnavailable(error: unknown): error is StorageUnavailableError {
  return error instanceof StorageUnavailableError;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = codeOf(cause);
  return code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
}

/** SQLite primary codes (extended ones start with them: `SQLITE_IOERR_WRITE`). */
const SQLITE_REASONS: readonly (readonly [prefix: string, reason: StorageFaultReason])[] = [
  ['SQLITE_BUSY', 'lock_busy'],
  ['SQLITE_LOCKED', 'lock_busy'],
  ['SQLITE_FULL', 'disk_full'],
  ['SQLITE_IOERR', 'io_error'],
  ['SQLITE_READONLY', 'read_only'],
  ['SQLITE_CANTOPEN', 'io_error'],
];

/** PostgreSQL SQLSTATEs and the socket errors of a lost connection. */
const EXACT_REASONS: Readonly<Record<string, StorageFaultReason>> = {
  '53100': 'disk_full',
  '53200': 'io_error',
  '53300': 'unreachable',
  '58030': 'io_error',
  '25006': 'read_only',
  // The server ended a transaction left idle too long (`PG_IDLE_IN_TRANSACTION_MAX_MS`).
  '25P03': 'unreachable',
  '55P03': 'lock_busy',
  '57P01': 'unreachable',
  '57P02': 'unreachable',
  '57P03': 'unreachable',
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
  EPIPE: 'unreachable',
  ETIMEDOUT: 'unreachable',
};

/**
 * What `pg` and its pool throw, without a code, when a connection dropped
 * under a statement or none could be made in time, and what the store throws
 * when a statement's reply did not come in time (`pg-reply-bound.ts`).
 */
const UNCODED_UNREACHABLE =
  /^(Connection terminated|timeout exceeded when trying to connect|no reply from PostgreSQL)/;

/** The storage fault `error` is, or `undefined` when it is something else. */
export function storageFaultReason(error: unknown): StorageFaultReason | undefined {
  const code = codeOf(error);
  if (code === undefined) {
    return error instanceof Error && UNCODED_UNREACHABLE.test(error.message)
      ? 'unreachable'
      : undefined;
  }
  if (code.startsWith('SQLITE_')) {
    return SQLITE_REASONS.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`))?.[1];
  }
  // Class 08: connection exceptions.
  if (/^08[0-9A-Z]{3}$/.test(code)) return 'unreachable';
  return EXACT_REASONS[code];
}

/**
 * The database's file or pages are damaged (SQLite's `SQLITE_NOTADB` and
 * `SQLITE_CORRUPT`, PostgreSQL's `XX001` and `XX002`): no retry mends it,
 * so it is no storage fault (a 503 says "try again"), and an operator
 * restores a backup.
 */
export function isDamagedDatabase(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) return false;
  return (
    code === 'SQLITE_NOTADB' ||
    code === 'SQLITE_CORRUPT' ||
    code.startsWith('SQLITE_CORRUPT_') ||
    code === 'XX001' ||
    code === 'XX002'
  );
}

/**
 * Runs `work` again, once, when its connection was lost: a pooled connection
 * that died while idle fails the first statement sent on it, and the pool
 * hands the retry a new one. Only for work that may run twice (a delete, an
 * update to the same values): the first may have committed before its reply
 * was lost.
 */
export async function idempotentOnNewConnection<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(isStorageUnavailable(error) && error.reason === 'unreachable')) throw error;
    return work();
  }
}

/** `error` as a `StorageUnavailableError` when it is a storage fault, else unchanged. */
export function asStorageFault(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const reason = storageFaultReason(error);
  return reason === undefined ? error : new StorageUnavailableError(reason, error);
}

/**
 * A Kysely dialect whose every statement, and every connection it hands out,
 * reports storage faults as `StorageUnavailableError`. Other errors (a
 * constraint, a syntax error, a timeout the caller set) pass unchanged.
 */
export function reportingStorageFaults(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new FaultReportingDriver(dialect.createDriver()),
  };
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asStorageFault(error);
  }
}

class FaultReportingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(...args: Parameters<DatabaseConnection['executeQuery']>) {
    return translated<QueryResult<R>>(() => this.inner.executeQuery<R>(...args));
  }

  async *streamQuery<R>(...args: Parameters<DatabaseConnection['streamQuery']>) {
    try {
      yield* this.inner.streamQuery<R>(...args);
    } catch (error) {
      throw asStorageFault(error);
    }
  }
}

class FaultReportingDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, FaultReportingConnection>();

  constructor(private readonly inner: Driver) {}

  init() {
    return translated(() => this.inner.init());
  }

  async acquireConnection() {
    const connection = await translated(() => this.inner.acquireConnection());
    let wrapper = this.wrapped.get(connection);
    if (!wrapper) {
      wrapper = new FaultReportingConnection(connection);
      this.wrapped.set(connection, wrapper);
    }
    return wrapper;
  }

  private unwrap(connection: DatabaseConnection): DatabaseConnection {
    return connection instanceof FaultReportingConnection ? connection.inner : connection;
  }

  beginTransaction(...[connection, settings]: Parameters<Driver['beginTransaction']>) {
    return translated(() => this.inner.beginTransaction(this.unwrap(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection) {
    return translated(() => this.inner.commitTransaction(this.unwrap(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection) {
    return translated(() => this.inner.rollbackTransaction(this.unwrap(connection)));
  }

  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection(this.unwrap(connection));
  }

  destroy() {
    return this.inner.destroy();
  }
}
