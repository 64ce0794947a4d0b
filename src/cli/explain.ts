import { BootstrapError } from '../auth/bootstrap.js';
import { ReplicaIdInUseError, ReplicaSupersededError } from '../cluster/index.js';
import { ConfigError } from '../config.js';
import { ListenError } from '../server/listen.js';
import { DataDirLockedError, SchemaStepError, StoreOpenError } from '../store/index.js';

/** Errors a person can act on get their own message; anything else is a bug and says so. */
export function explain(error: unknown): string {
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  if (error instanceof StoreOpenError) return error.message;
  if (error instanceof DataDirLockedError) return error.message;
  if (error instanceof SchemaStepError) return `database start-up failed: ${error.message}`;
  if (error instanceof ListenError) return error.message;
  if (error instanceof BootstrapError) return error.message;
  if (error instanceof ReplicaIdInUseError) return error.message;
  if (error instanceof ReplicaSupersededError) return error.message;
  return `unexpected start-up failure: ${error instanceof Error ? error.message : String(error)}`;
}
