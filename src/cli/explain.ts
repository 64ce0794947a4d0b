import { BootstrapError } from '../auth/bootstrap.js';
import { ReplicaIdInUseError, ReplicaSupersededError } from '../cluster/index.js';
import { ConfigError } from '../config.js';
import { ListenError } from '../server/listen.js';
import {
  DataDirLockedError,
  isDamagedDatabase,
  SchemaStepError,
  StorageUnavailableError,
  StoreOpenError,
  type StorageFaultReason,
} from '../store/index.js';

/**
 * A storage fault met by a start-up step after the database opened (the
 * replica's registration, recovery, the first admin): the operator's to
 * fix, never a bug, whichever step met it.
 */
const STORAGE_FAULT_ADVICE: Record<StorageFaultReason, string> = {
  lock_busy:
    'another process held the database’s lock for longer than Clarion waits; ' +
    'stop it (a backup, a sqlite3 shell) or let it finish, then start again',
  disk_full: 'the disk holding the database is full; free some space, then start again',
  io_error: 'the database could not be read or written; check its disk and file system',
  read_only: 'the database refused to be written; Clarion must be able to write it',
  unreachable: 'the database stopped answering; check that it runs and is reachable',
};

/** Errors a person can act on get their own message; anything else is a bug and says so. */
export function explain(error: unknown): string {
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  if (error instanceof StoreOpenError) return error.message;
  if (error instanceof DataDirLockedError) return error.message;
  if (error instanceof SchemaStepError) return `database start-up failed: ${error.message}`;
  if (error instanceof StorageUnavailableError) {
    return `database unavailable during start-up: ${STORAGE_FAULT_ADVICE[error.reason]} (${error.message})`;
  }
  if (isDamagedDatabase(error)) {
    return `the database is damaged: ${error instanceof Error ? error.message : String(error)}; restore it from a backup`;
  }
  if (error instanceof ListenError) return error.message;
  if (error instanceof BootstrapError) return error.message;
  if (error instanceof ReplicaIdInUseError) return error.message;
  if (error instanceof ReplicaSupersededError) return error.message;
  return `unexpected start-up failure: ${error instanceof Error ? error.message : String(error)}`;
}
